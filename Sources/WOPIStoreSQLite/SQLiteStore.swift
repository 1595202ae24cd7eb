import CSQLiteConfig
import Foundation
import WOPIHost
import GRDB
import GRDBSQLite
import WOPICore
import WOPIStoreSQL

/// The embedded `WOPIStore`: one SQLite database in WAL mode.
///
/// Several processes may open the same database at once (`wopi serve` and the `wopi users` /
/// `wopi files` commands do); writers queue behind SQLite's lock with a busy timeout. Every
/// write runs in an immediate transaction, so each lock change is one compare-and-set.
public final class SQLiteStore: WOPIStore {
    /// Shared with the sessions and the lock batcher.
    let pool: StoreDatabasePool
    /// Group commit for ``updateLock(_:request:now:)-(ResourceID,_,_)``.
    private let lockChanges: LockChangeBatcher
    /// The reads every WOPI request starts with, on SQLite's C API.
    let lookups: SQLiteLookups

    /// Opens (creating and migrating if needed) the database at `path`.
    ///
    /// Throws `StoreSchemaError/newerThanBinary(found:supported:)` when a newer WOPIKit migrated it.
    ///
    /// A database file that is locked by another process for longer than ``busyTimeout``, cannot be read,
    /// or is damaged makes calls throw `StoreUnavailable`; the next call after it is fixed works.
    public init(path: String) throws {
        var configuration = Configuration()
        // SQLite's own busy handler backs off to 100 ms between tries, so a process whose writes follow each other
        // closely keeps a waiting process out for the whole timeout; trying every millisecond gives it its turn.
        let tries = Int(Self.busyTimeout * 1000)
        configuration.busyMode = .callback { tried in
            guard tried < tries else { return false }
            usleep(1000)
            return true
        }
        configuration.foreignKeysEnabled = true
        // The rules' transactions stay open across several accesses of the writer (`StoreDatabasePool.transaction(_:)`).
        configuration.allowsUnsafeTransactions = true
        let pool = try DatabasePool(path: path, configuration: configuration)
        let migrator = SQLiteSchema.migrator
        // A migration this binary does not know means a newer WOPIKit wrote here: refuse rather than risk the data.
        let unknown = try pool.read { db in try migrator.appliedIdentifiers(db).subtracting(migrator.migrations) }
        if !unknown.isEmpty {
            throw StoreSchemaError.newerThanBinary(found: unknown.sorted().joined(separator: ", "), supported: migrator.migrations.last ?? "none")
        }
        try migrator.migrate(pool)
        self.pool = StoreDatabasePool(pool)
        lockChanges = LockChangeBatcher(pool: self.pool)
        lookups = SQLiteLookups(path: path)
    }

    /// How long a statement waits for another process's lock on the database (`wopi users`, `wopi files`,
    /// another host process) before the call throws `StoreUnavailable`: writes are short, so a lock held
    /// longer means something is wrong, and a request must be answered within seconds.
    public static let busyTimeout: TimeInterval = 1

    /// Configures SQLite for a server process; call before anything opens a database (`wopi serve`
    /// does, first thing). It turns off SQLite's memory statistics: with them on, every allocation
    /// takes one process-wide mutex, which concurrent reads contended for (Debian's SQLite is built
    /// without per-connection lookaside memory, so every allocation goes there). Returns whether
    /// SQLite took the setting (not once it is in use).
    @discardableResult
    public static func configureProcess() -> Bool {
        wopi_sqlite_disable_memory_statistics() == SQLITE_OK
    }

    // MARK: Users

    /// The user with this id.
    public func user(id: ResourceID) async throws -> UserRecord? {
        try lookups.user(id)
    }

    // MARK: Containers

    /// The container with this id.
    public func container(id: ResourceID) async throws -> ContainerRecord? {
        try lookups.container(id)
    }

    /// Up to `limit` direct child containers of a container, sorted by name as in `children(of:)`,
    /// starting after the child named `after` (case-insensitively) when it is given.
    public func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord] {
        try lookups.containers(in: id, after: after, limit: limit)
    }

    /// Up to `limit` files of a container, sorted by name as in `children(of:)`, starting after the
    /// file named `after` (case-insensitively) when it is given. Same paging rules as
    /// `childContainers(of:after:limit:)`.
    public func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord] {
        try lookups.files(in: id, after: after, limit: limit)
    }

    // MARK: Files

    /// The file with this id.
    public func file(id: ResourceID) async throws -> FileRecord? {
        try lookups.file(id)
    }

    /// Applies a lock request atomically and returns the decision with the file as it is afterwards.
    public func updateLock(_ id: ResourceID, request: LockRules.Request, now: Date) async throws
        -> (decision: LockRules.Decision, file: FileRecord) {
        // Concurrent lock changes share one transaction and one fsync (group commit).
        try await lockChanges.apply(id, request: request, now: now)
    }

    /// The caller, the file, the caller's role on the file and on its folder, and the folder's name — in one step.
    public func fileAccess(_ fileID: ResourceID, by userID: ResourceID) async throws -> FileAccess? {
        // One statement: the user, the file with its folder's name, and for anyone but the owner
        // the best share on the folder chain and the share on the file itself.
        try lookups.fileAccess(fileID, by: userID)
    }

    /// The caller, the container and the caller's role on it (the rule of `fileAccess(_:by:)`) — in one step.
    /// `nil` when the user does not exist.
    public func containerAccess(_ containerID: ResourceID, by userID: ResourceID) async throws -> ContainerAccess? {
        try lookups.containerAccess(containerID, by: userID)
    }

    /// Proves the database can be read now (for `GET /health/ready`); throws an error whose description
    /// names the problem otherwise.
    public func checkReadiness() async throws {
        try await pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM version_counter") }
    }

    // MARK: Rows

    static func file(_ db: Database, _ id: ResourceID) throws -> FileRecord? {
        try decodeOne(db.cachedStatement(sql: "SELECT \(fileColumns) FROM files WHERE id = ? AND trash_id IS NULL"), arguments: [id.rawValue]) {
            try file($0)
        }
    }

    /// The first row of `statement`, read as the shared decoders take it.
    static func decodeOne<Record>(_ statement: Statement, arguments: StatementArguments, _ decode: (SQLRow) throws -> Record) throws -> Record? {
        try Row.fetchOne(statement, arguments: arguments).map { try decode(SQLiteSession.row($0)) }
    }
}
