import Foundation
import WOPIHost
import GRDB
import Synchronization
import WOPIStoreSQL

/// ``SQLiteStore``'s GRDB pool, reporting a database file that is locked by another process, cannot be
/// opened or read, or is damaged as `StoreUnavailable` (the other errors pass through as they are).
///
/// A statement waits at most ``SQLiteStore/busyTimeout`` for another process's lock. Writes run one
/// after the other, so a write queued behind one that found the file locked is answered at once rather
/// than waiting as long again: each request gets its answer within about two busy timeouts.
struct StoreDatabasePool: Sendable {
    /// The pool itself, for migrations.
    let base: DatabasePool
    /// Counts writes that found the file locked.
    private let lockFailures = LockFailures()
    /// Held by every write of this process, so none runs inside a ``transaction(_:)`` left open between its statements.
    private let writeLock = AsyncLock()
    /// Where a ``transaction(_:)`` runs its statements, off Swift's cooperative pool.
    private let writer = SQLiteWriterExecutor()

    init(_ base: DatabasePool) {
        self.base = base
    }

    func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        do { return try await base.read(value) } catch { throw forgettingPages(Self.mapped(error)) }
    }

    /// After a failure that says the file is damaged or unreadable, drops the pages the connections
    /// cached, so that once the file is repaired the next read sees it rather than what was read before.
    private func forgettingPages(_ error: any Error) -> any Error {
        // Eventually: releaseMemory() would wait for every reader, on a thread of Swift's cooperative pool.
        if error is StoreUnavailable { base.releaseMemoryEventually() }
        return error
    }

    /// How many writes have found the file locked so far: a caller that saw a smaller count before it
    /// queued can be answered at once (``write(after:_:)``).
    var lockFailureCount: Int { lockFailures.count }

    func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await write(after: lockFailures.count, updates)
    }

    /// Runs `updates` in a write transaction, unless a write found the file locked since the caller read
    /// `seen` from ``lockFailureCount``: then it throws `StoreUnavailable` without waiting again.
    func write<T: Sendable>(after seen: Int, _ updates: @Sendable (Database) throws -> T) async throws -> T {
        let failures = lockFailures
        do {
            return try await writeLock.withLock {
                try await base.write { db in
                    guard failures.count == seen else { throw StoreUnavailable(Self.lockedReason) }
                    return try updates(db)
                }
            }
        } catch {
            throw failed(error)
        }
    }

    /// Runs `body` in one immediate transaction on the writer connection, which stays open between its
    /// statements (the database is opened with `allowsUnsafeTransactions`) while the write lock keeps every
    /// other write of this process out.
    ///
    /// `body` runs on the writer's own thread (``SQLiteWriterExecutor``), where every statement, `BEGIN IMMEDIATE`
    /// and `COMMIT` included, runs synchronously: the rules' steps do not suspend on SQLite, so the database's write
    /// lock is held for the statements alone, never across a wait for a thread, and another process polling for it
    /// gets its turn. `BEGIN IMMEDIATE` may wait up to ``SQLiteStore/busyTimeout`` for another process; that wait
    /// blocks the writer's thread, never one of Swift's cooperative pool.
    func transaction<T: Sendable>(_ body: (SQLiteSession) async throws -> T) async throws -> T {
        let session = SQLiteSession(pool: self, reads: false)
        do {
            return try await writeLock.withLock {
                try await withTaskExecutorPreference(writer) {
                    try await session.execute("BEGIN IMMEDIATE")
                    do {
                        let result = try await body(session)
                        try await session.execute("COMMIT")
                        return result
                    } catch {
                        rollBack()
                        throw error
                    }
                }
            }
        } catch {
            throw forgettingPages(failed(error))
        }
    }

    /// The error a failed write throws (`StoreUnavailable` when the file cannot be used); one that found the
    /// file locked is counted, so the writes queued behind it are answered at once.
    private func failed(_ error: any Error) -> any Error {
        if (error as? DatabaseError).map(Self.isLocked) ?? false { lockFailures.increment() }
        return Self.mapped(error)
    }

    /// Ends the writer's open transaction, synchronously: a cancelled task's asynchronous access would not
    /// run, and the transaction must not outlive the write lock.
    private func rollBack() {
        try? base.writeWithoutTransaction { db in if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") } }
    }

    static let lockedReason = "the database file is locked by another process"

    /// `StoreUnavailable` for an error that says the database file cannot be used; `error` itself otherwise.
    static func mapped(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError, let reason = unavailability(error) else { return error }
        return StoreUnavailable(reason)
    }

    /// Why the database file cannot be used, or `nil` when the error is about the statement (a constraint, …).
    static func unavailability(_ error: DatabaseError) -> String? {
        if isLocked(error) { return lockedReason }
        switch error.resultCode {
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: return "the database file cannot be opened"
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return "the database file cannot be read: it is damaged or not a database"
        case .SQLITE_IOERR, .SQLITE_PROTOCOL: return "the database file cannot be read or written (I/O error)"
        case .SQLITE_FULL: return "no space left for the database"
        case .SQLITE_READONLY: return "the database file is read-only"
        default: return nil
        }
    }

    static func isLocked(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    private final class LockFailures: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .relaxed) }
        func increment() { value.add(1, ordering: .relaxed) }
    }
}
