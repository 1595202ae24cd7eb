extension HistoryChecker {
    /// The time rule: every request ends within ``answerBound``; outside a fault and the ``recoveryBound``
    /// after it, none fails with a server error (5xx) or goes unanswered.
    func time(_ events: [HistoryEvent], faults: [FaultWindow]) -> [HistoryAnomaly] {
        var anomalies: [HistoryAnomaly] = []
        for event in events {
            let took = event.completed - event.invoked
            if took > answerBound {
                let ending = if case .indeterminate = event.outcome { "given up on" } else { "answered" }
                anomalies.append(HistoryAnomaly(
                    kind: .slowAnswer, file: event.file,
                    explanation: "\(Self.name(event.operation)) sent at \(Self.text(event.invoked)) was \(ending) after \(Self.text(took)), "
                        + "past the \(Self.text(answerBound)) bound",
                    events: [event]))
            }
            let failure: String? = switch event.outcome {
            case .failed(let status) where status >= 500: "failed with HTTP \(status)"
            case .failed(0): "was refused a connection"
            case .indeterminate: "got no answer"
            default: nil
            }
            guard let failure else { continue }
            let excused = faults.contains { $0.start <= event.completed && event.invoked <= $0.end + recoveryBound }
            guard !excused else { continue }
            let context = faults.filter { $0.end <= event.invoked }.max { $0.end < $1.end }
                .map { "\(Self.text(event.invoked - $0.end)) after '\($0.kind)' ended" } ?? "with no fault before it"
            anomalies.append(HistoryAnomaly(
                kind: .serviceNotRestored, file: event.file,
                explanation: "\(Self.name(event.operation)) sent at \(Self.text(event.invoked)) \(failure), \(context)",
                events: [event]))
        }
        return anomalies
    }

    /// The WOPI name of an operation.
    static func name(_ operation: HistoryOperation) -> String {
        switch operation {
        case .lock: "Lock"
        case .refreshLock: "RefreshLock"
        case .unlock: "Unlock"
        case .unlockAndRelock: "UnlockAndRelock"
        case .putFile: "PutFile"
        case .getFile: "GetFile"
        case .checkFileInfo: "CheckFileInfo"
        case .renameFile: "RenameFile"
        case .deleteFile: "DeleteFile"
        }
    }
}
