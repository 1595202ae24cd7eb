extension HistoryChecker {
    /// The locks rule: a lock granted to one id while another id certainly held it is a double grant.
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
        var anomalies: [HistoryAnomaly] = []
        for second in grants {
            let holder = grants.first { first in
                guard first.lock != second.lock, first.event.completed < second.event.invoked else { return false }
                let sent = releases[first.lock, default: []]
                let firstAfterGrant = Self.firstIndex(in: sent) { $0 > first.event.invoked }
                let released = firstAfterGrant < sent.count && sent[firstAfterGrant] < second.event.completed
                let renewed = renewals[first.lock, default: []]
                let afterLast = Self.firstIndex(in: renewed) { $0 >= second.event.completed }
                let lastRenewal = afterLast > 0 ? max(renewed[afterLast - 1], first.event.invoked) : first.event.invoked
                return !released && lastRenewal + lockLifetime >= second.event.completed
            }
            guard let holder else { continue }
            anomalies.append(HistoryAnomaly(
                kind: .doubleLockGrant, file: file,
                explanation: "lock '\(second.lock)' was granted to client \(second.event.client) at \(Self.text(second.event.completed)) "
                    + "while '\(holder.lock)', granted to client \(holder.event.client) at \(Self.text(holder.event.completed)), still held it",
                events: [holder.event, second.event]))
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
