import Foundation
import WOPIHost
import GRDB
import WOPICore
import NIOConcurrencyHelpers

/// Group commit for lock changes: Lock, Unlock and RefreshLock requests that arrive while
/// a lock transaction is committing are applied together in the next transaction.
///
/// SQLite commits one transaction at a time and each commit waits for its `fsync`; one commit per
/// request capped Lock + Unlock at what the disk can sync. Batching keeps every guarantee of
/// ``SQLiteStore/updateLock(_:request:now:)-(ResourceID,_,_)``: the requests of a batch are evaluated one after the
/// other inside one immediate transaction, each seeing the ones before it (exactly as if they had
/// run one by one in that order), and no caller hears its answer before the transaction holding its
/// change is durably committed. If the transaction fails, every request in it fails and nothing of it
/// is applied.
final class LockChangeBatcher: Sendable {
    typealias Outcome = Result<(decision: LockRules.Decision, file: FileRecord), any Error>

    private struct Pending: Sendable {
        let id: ResourceID
        let request: LockRules.Request
        let now: Date
        /// The pool's lock-failure count when the request arrived.
        let seenLockFailures: Int
        let continuation: CheckedContinuation<(decision: LockRules.Decision, file: FileRecord), any Error>
    }

    private let pool: StoreDatabasePool
    /// The requests waiting for the next batch, and whether a task is committing batches.
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let queue = NIOLockedValueBox<(pending: [Pending], isCommitting: Bool)>(([], false))
    /// The most requests one transaction takes: bounds how long the write lock is held.
    private let maximumBatch = 256

    init(pool: StoreDatabasePool) {
        self.pool = pool
    }

    /// Applies one lock request, in the next batch; returns when that batch is committed.
    func apply(_ id: ResourceID, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        try await withCheckedThrowingContinuation { continuation in
            let waiting = Pending(id: id, request: request, now: now, seenLockFailures: pool.lockFailureCount, continuation: continuation)
            let startsCommitter = queue.withLockedValue { queue in
                queue.pending.append(waiting)
                guard !queue.isCommitting else { return false }
                queue.isCommitting = true
                return true
            }
            if startsCommitter { Task { await self.commitUntilEmpty() } }
        }
    }

    /// Commits batches until no request waits; requests arriving meanwhile join the next batch.
    private func commitUntilEmpty() async {
        while true {
            let taken: [Pending] = queue.withLockedValue { [maximumBatch] queue in
                let taken = Array(queue.pending.prefix(maximumBatch))
                queue.pending.removeFirst(taken.count)
                if taken.isEmpty { queue.isCommitting = false }
                return taken
            }
            guard !taken.isEmpty else { return }
            // Requests that waited while a batch found the database locked are answered now, not after waiting as long again.
            let failures = pool.lockFailureCount
            let (stale, batch) = (taken.filter { $0.seenLockFailures != failures }, taken.filter { $0.seenLockFailures == failures })
            for item in stale { item.continuation.resume(throwing: StoreUnavailable(StoreDatabasePool.lockedReason)) }
            guard !batch.isEmpty else { continue }
            let work = batch.map { (id: $0.id, request: $0.request, now: $0.now) }
            do {
                let outcomes = try await pool.write(after: failures) { db in try work.map { try Self.apply($0.id, $0.request, $0.now, db) } }
                for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(with: outcome) }
            } catch {
                for item in batch { item.continuation.resume(throwing: error) }
            }
        }
    }

    /// One request inside the batch's transaction. A missing file fails only its own request; a
    /// database error fails the whole transaction (it is rethrown by `pool.write`).
    private static func apply(_ id: ResourceID, _ request: LockRules.Request, _ now: Date, _ db: Database) throws -> Outcome {
        guard var file = try SQLiteStore.file(db, id) else { return .failure(WOPIStoreError.notFound) }
        let decision = LockRules.evaluate(request, current: file.lock, now: now)
        if case .granted(let newState) = decision, newState != file.lock {
            file.lock = newState
            try db.execute(sql: "UPDATE files SET lock_value = ?, lock_expires_at = ? WHERE id = ?",
                           arguments: [newState?.lock.value, newState?.expiresAt.timeIntervalSince1970, id.rawValue])
        }
        return .success((decision, file))
    }
}
