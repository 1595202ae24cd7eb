extension HistoryChecker {
    /// A save that may have set the file's body: the body it sent and when it may have taken effect.
    struct Write {
        let body: BodyDigest
        let event: HistoryEvent?
        /// From when it may have taken effect (`nil`: before the run).
        let from: Duration?
        /// Until when it may have taken effect (`nil`: before the run).
        let until: Duration?
        let isAcknowledged: Bool
    }

    /// The saves rule: each GetFile's body is one that some order of the saves around it explains.
    func saves(_ events: [HistoryEvent], file: String, initialBody: BodyDigest?) -> [HistoryAnomaly] {
        var writes: [Write] = initialBody.map { [Write(body: $0, event: nil, from: nil, until: nil, isAcknowledged: true)] } ?? []
        var refused: [BodyDigest: HistoryEvent] = [:]
        for event in events {
            guard case .putFile(_, let body) = event.operation else { continue }
            switch event.outcome {
            case .succeeded:
                writes.append(Write(body: body, event: event, from: event.invoked, until: event.completed, isAcknowledged: true))
            case .indeterminate:
                writes.append(Write(body: body, event: event, from: event.invoked, until: event.completed + answerBound, isAcknowledged: false))
            case .failed:
                refused[body] = event
            }
        }
        let acknowledged = writes.filter { $0.isAcknowledged && $0.event != nil }
        var anomalies: [HistoryAnomaly] = []
        for read in events {
            guard case .getFile = read.operation, case .succeeded(let seen) = read.outcome, let body = seen.body else { continue }
            // A write explains the read when it began before the read ended and no acknowledged write
            // certainly replaced it before the read began.
            func replacement(of write: Write) -> Write? {
                acknowledged.first { later in
                    later.event != write.event && (write.until.map { later.from! > $0 } ?? true) && later.until! < read.invoked
                }
            }
            let sameBody = writes.filter { $0.body == body && ($0.from.map { $0 < read.completed } ?? true) }
            if sameBody.contains(where: { replacement(of: $0) == nil }) { continue }
            let when = "GetFile at \(Self.text(read.invoked))–\(Self.text(read.completed))"
            if let write = sameBody.first(where: \.isAcknowledged), let newer = replacement(of: write) {
                let source = write.event.map { "the save acknowledged at \(Self.text($0.completed))" } ?? "the body the file held before the run"
                anomalies.append(HistoryAnomaly(
                    kind: .lostUpdate, file: file,
                    explanation: "\(when) returned \(source), which the save acknowledged at \(Self.text(newer.until!)) had replaced",
                    events: [write.event, newer.event, read].compactMap { $0 }))
            } else if let write = sameBody.first, let event = write.event {
                anomalies.append(HistoryAnomaly(
                    kind: .lateSave, file: file,
                    explanation: "\(when) returned the body of a save given up on at \(Self.text(event.completed)): it took effect "
                        + "after its bound, or the save acknowledged at \(Self.text(replacement(of: write)?.until ?? read.invoked)) was lost",
                    events: [event, replacement(of: write)?.event, read].compactMap { $0 }))
            } else if let event = refused[body] {
                anomalies.append(HistoryAnomaly(
                    kind: .refusedSaveVisible, file: file,
                    explanation: "\(when) returned the body of a save the host refused at \(Self.text(event.completed))",
                    events: [event, read]))
            } else {
                anomalies.append(HistoryAnomaly(
                    kind: .unknownBody, file: file,
                    explanation: "\(when) returned a body (\(body)) that no save sent before it ended: torn, mixed or from nowhere",
                    events: [read]))
            }
        }
        return anomalies
    }

    /// Seconds with milliseconds: "12.345 s".
    static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = abs(milliseconds)
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }
}
