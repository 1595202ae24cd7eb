/// Judges a ``History`` recorded from concurrent clients under injected faults, in the manner of Jepsen's
/// checkers: from what each client saw and when, it finds every broken promise a WOPI host makes.
///
/// - Saves: a GetFile returns the body of the last acknowledged PutFile, or of one still in doubt (sent
///   but unanswered, within its bound), never a replaced, refused or torn one.
/// - Locks: never two clients holding one file's lock at once.
/// - Versions: one version is never shown with two bodies, and never comes back after a later one.
/// - Time: every request is answered within ``answerBound``, and full service (no 5xx, no silence) is back
///   within ``recoveryBound`` of each fault's end.
///
/// "Before" means in real time: a request that completed before another was invoked. Requests that overlap
/// may take effect in either order, so the checker never flags what some order of them would explain.
public struct HistoryChecker: Sendable {
    /// The longest a request may take. An unanswered save may still take effect until this long after its
    /// client gave up; not later.
    public var answerBound: Duration
    /// How soon after a fault ends every request must succeed again.
    public var recoveryBound: Duration
    /// How long a lock lasts without a refresh (WOPI: 30 minutes).
    public var lockLifetime: Duration

    /// A checker with WOPIKit's bounds: answers within 5 s, full service 10 s after a fault, locks of 30 minutes.
    public init(answerBound: Duration = .seconds(5), recoveryBound: Duration = .seconds(10), lockLifetime: Duration = .seconds(30 * 60)) {
        self.answerBound = answerBound
        self.recoveryBound = recoveryBound
        self.lockLifetime = lockLifetime
    }

    /// Every broken promise in `history`, file by file; empty when it keeps them all.
    public func check(_ history: History) -> [HistoryAnomaly] {
        let files = Dictionary(grouping: history.events, by: \.file)
        var anomalies: [HistoryAnomaly] = []
        for file in files.keys.sorted() {
            let events = files[file, default: []].sorted { ($0.invoked, $0.completed) < ($1.invoked, $1.completed) }
            anomalies += saves(events, file: file, initialBody: history.initialBodies[file])
            anomalies += locks(events, file: file)
            anomalies += versions(events, file: file)
        }
        anomalies += time(history.events.sorted { $0.invoked < $1.invoked }, faults: history.faults)
        return anomalies
    }
}
