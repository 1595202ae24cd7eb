extension HistoryChecker {
    /// The locks rule: a lock granted to one id while another id certainly held it is a double grant, and a file
    /// deleted while any id certainly held its lock was deleted under a lock.
    ///
    /// An id holds the lock from a granting Lock (or UnlockAndRelock) until something may have released it:
    /// an Unlock or UnlockAndRelock of that id, or a DeleteFile, answered or not; or the lock's lifetime after
    /// the last request that may have renewed it.
    func locks(_ events: [HistoryEvent], file: String) -> [HistoryAnomaly] {
        let grants = events.compactMap { event -> (lock: String, event: HistoryEvent)? in
            guard case .succeeded = event.outcome else { return nil }
            switch event.operation {
            case .lock(let lock), .unlockAndRelock(_, let lock): return (lock, event)
            default: return nil
            }
        }
        func mayRelease(_ event: HistoryEvent, _ lock: String) -> Bool {
            if case .failed = event.outcome { return false }
            switch event.operation {
            case .unlock(let id), .unlockAndRelock(let id, _): return id == lock
            case .deleteFile: return true
            default: return false
            }
        }
        func mayRenew(_ event: HistoryEvent, _ lock: String) -> Bool {
            if case .failed = event.outcome { return false }
            switch event.operation {
            case .lock(let id), .refreshLock(let id), .unlockAndRelock(_, let id): return id == lock
            default: return false
            }
        }
        // By lock id, when requests that may release or renew it were sent, in order.
        var releases: [String: [Duration]] = [:], renewals: [String: [Duration]] = [:]
        for lock in Set(grants.map(\.lock)) {
            releases[lock] = events.filter { mayRelease($0, lock) }.map(\.invoked).sorted()
            renewals[lock] = events.filter { mayRenew($0, lock) }.map(\.invoked).sorted()
        }
        /// A grant other than `lock` that certainly still held the lock while a request sent at `invoked` was answered at
        /// `completed`; with `requestMayRelease` false, that request itself is not counted as releasing it.
        func holder(otherThan lock: String?, invoked: Duration, completed: Duration,
                    requestMayRelease: Bool = true) -> (lock: String, event: HistoryEvent)? {
            grants.first { first in
                guard first.lock != lock, first.event.completed < invoked else { return false }
                let sent = releases[first.lock, default: []]
                let firstAfterGrant = Self.firstIndex(in: sent) { $0 > first.event.invoked }
                let released = sent[firstAfterGrant...].contains { $0 < completed && (requestMayRelease || $0 != invoked) }
                let renewed = renewals[first.lock, default: []]
                let afterLast = Self.firstIndex(in: renewed) { $0 >= completed }
                let lastRenewal = afterLast > 0 ? max(renewed[afterLast - 1], first.event.invoked) : first.event.invoked
                return !released && lastRenewal + lockLifetime >= completed
            }
        }
        var anomalies: [HistoryAnomaly] = []
        for second in grants {
            guard let holder = holder(otherThan: second.lock, invoked: second.event.invoked, completed: second.event.completed) else { continue }
            anomalies.append(HistoryAnomaly(
                kind: .doubleLockGrant, file: file,
                explanation: "lock '\(second.lock)' was granted to client \(second.event.client) at \(Self.text(second.event.completed)) "
                    + "while '\(holder.lock)', granted to client \(holder.event.client) at \(Self.text(holder.event.completed)), still held it",
                events: [holder.event, second.event]))
        }
        // DeleteFile takes no lock id: the host must refuse it (409) while anyone holds the lock.
        for deletion in events {
            guard case .deleteFile = deletion.operation, case .succeeded = deletion.outcome,
                  let holder = holder(otherThan: nil, invoked: deletion.invoked, completed: deletion.completed, requestMayRelease: false)
            else { continue }
            anomalies.append(HistoryAnomaly(
                kind: .deletedWhileLocked, file: file,
                explanation: "DeleteFile by client \(deletion.client) succeeded at \(Self.text(deletion.completed)) while lock '\(holder.lock)', "
                    + "granted to client \(holder.event.client) at \(Self.text(holder.event.completed)), held the file",
                events: [holder.event, deletion]))
        }
        return anomalies
    }

    /// The first index of sorted `times` where `isPast` holds (it holds for every later one), or `times.count`.
    static func firstIndex(in times: [Duration], where isPast: (Duration) -> Bool) -> Int {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(times[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
