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
    /// Shared with the store's extensions in other files (authorization tables).
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
        configuration.busyMode = .timeout(Self.busyTimeout)
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

    /// Creates a user with an empty root container. Throws `WOPIStoreError.nameTaken(_:)` for a duplicate name.
    public func createUser(name: String, displayName: String, passwordHash: PasswordHash) async throws -> UserRecord {
        let user = UserRecord(id: .random(), name: name, displayName: displayName, passwordHash: passwordHash,
                              rootContainerID: .random())
        try await pool.write { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [name]) != nil {
                throw WOPIStoreError.nameTaken(name)
            }
            try db.execute(sql: """
                INSERT INTO users (id, name, display_name, password_hash, root_container_id) VALUES (?, ?, ?, ?, ?)
                """, arguments: [user.id.rawValue, name, displayName, passwordHash.encoded, user.rootContainerID.rawValue])
            try db.execute(sql: "INSERT INTO containers (id, parent_id, owner_id, name) VALUES (?, NULL, ?, ?)",
                           arguments: [user.rootContainerID.rawValue, user.id.rawValue, WOPIName.sanitized("\(displayName)'s files").rawValue])
        }
        return user
    }

    /// The user with this id.
    public func user(id: ResourceID) async throws -> UserRecord? {
        try lookups.user(id)
    }

    /// The user with this sign-in name (case-insensitive).
    public func user(named name: String) async throws -> UserRecord? {
        try await pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM users WHERE name = ?", arguments: [name]).map { try Self.user($0) } }
    }

    /// All users, by name.
    public func users() async throws -> [UserRecord] {
        try await pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM users ORDER BY name").map { try Self.user($0) } }
    }

    /// Removes a user with all their containers and files; returns the blobs to delete.
    public func removeUser(id: ResourceID) async throws -> [BlobKey] {
        try await pool.write { db in
            let blobs = try String.fetchAll(db, sql: """
                SELECT blob_key FROM files WHERE owner_id = ?
                UNION SELECT v.blob_key FROM file_versions v JOIN files f ON f.id = v.file_id WHERE f.owner_id = ?
                """, arguments: [id.rawValue, id.rawValue])
            try db.execute(sql: "DELETE FROM files WHERE owner_id = ?", arguments: [id.rawValue])
            // Children before parents: deepest containers first, by repeatedly removing leaves.
            repeat {
                try db.execute(sql: """
                    DELETE FROM containers WHERE owner_id = ? AND id NOT IN (SELECT parent_id FROM containers WHERE parent_id IS NOT NULL)
                    """, arguments: [id.rawValue])
            } while db.changesCount > 0
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id.rawValue])
            guard db.changesCount > 0 else { throw WOPIStoreError.notFound }
            return try blobs.map { try .stored($0, column: "blob_key") }
        }
    }

    /// Stores PutUserInfo's value for a user.
    public func setUserInfo(_ info: String, for userID: ResourceID) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET user_info = ? WHERE id = ?", arguments: [info, userID.rawValue])
            guard db.changesCount > 0 else { throw WOPIStoreError.notFound }
        }
    }

    /// Replaces a user's password hash and, in the same transaction, ends every web session of theirs
    /// (`WebSessionStore`), so a new password signs out every browser. Returns how many sessions ended;
    /// throws `WOPIStoreError.notFound` for an unknown user.
    public func setPasswordHash(_ hash: PasswordHash, for userID: ResourceID) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [hash.encoded, userID.rawValue])
            guard db.changesCount > 0 else { throw WOPIStoreError.notFound }
            try db.execute(sql: "DELETE FROM web_sessions WHERE user_id = ?", arguments: [userID.rawValue])
            return db.changesCount
        }
    }

    // MARK: Containers

    /// The container with this id.
    public func container(id: ResourceID) async throws -> ContainerRecord? {
        try lookUp { db in try Self.container(db, id) }
    }

    /// The path from the owner's root down to and including this container.
    public func containerPath(to id: ResourceID) async throws -> [ContainerRecord] {
        try await pool.read { db in
            var path: [ContainerRecord] = []
            var next: ResourceID? = id
            while let current = next, let container = try Self.container(db, current) {
                path.insert(container, at: 0)
                next = container.parentID
                if path.count > 256 { break } // a cycle cannot be created through this API; stay safe anyway
            }
            guard !path.isEmpty else { throw WOPIStoreError.notFound }
            return path
        }
    }

    /// The direct children of a container, each list sorted by name.
    public func children(of id: ResourceID) async throws -> (containers: [ContainerRecord], files: [FileRecord]) {
        try await pool.read { db in
            guard try Self.container(db, id) != nil else { throw WOPIStoreError.notFound }
            let containers = try Row.fetchAll(db, sql: "SELECT * FROM containers WHERE parent_id = ? ORDER BY name COLLATE NOCASE",
                                              arguments: [id.rawValue]).map(Self.container)
            let files = try Row.fetchAll(db, sql: "SELECT * FROM files WHERE container_id = ? ORDER BY name COLLATE NOCASE",
                                         arguments: [id.rawValue]).map(Self.file)
            return (containers, files)
        }
    }

    /// A lookup by key in one `SELECT`, run on the calling thread.
    ///
    /// GRDB's async `read` hops to a reader's dispatch queue and back, which costs more than the
    /// microseconds a point lookup takes: those hops were most of CheckFileInfo's profile. The
    /// synchronous read runs inline (a serial queue runs a `sync` block on the caller's thread). It
    /// skips GRDB's explicit `BEGIN`/`COMMIT`: SQLite runs a lone statement in its own read
    /// transaction, which is all the isolation one `SELECT` needs. So `body` must run exactly one
    /// statement, and one that cannot take long; anything else stays on the async `read`.
    func lookUp<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.unsafeRead(body)
    }

    /// Up to `limit` direct child containers of a container, sorted by name as in `children(of:)`,
    /// starting after the child named `after` (case-insensitively) when it is given.
    public func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord] {
        try await pool.read { db in
            try Self.page(db, table: "containers", parent: "parent_id", id: id, after: after, limit: limit, decode: Self.container)
        }
    }

    /// Up to `limit` files of a container, sorted by name as in `children(of:)`, starting after the
    /// file named `after` (case-insensitively) when it is given. Same paging rules as
    /// `childContainers(of:after:limit:)`.
    public func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord] {
        try await pool.read { db in
            try Self.page(db, table: "files", parent: "container_id", id: id, after: after, limit: limit, decode: Self.file)
        }
    }

    /// One page of a listing; both forms walk the `(parent, name NOCASE)` unique index from the cursor on.
    private static func page<Record>(_ db: Database, table: String, parent: String, id: ResourceID, after: String?, limit: Int,
                                     decode: (Row) throws -> Record) throws -> [Record] {
        guard let after else {
            return try decodeAll(db.cachedStatement(sql: "SELECT * FROM \(table) WHERE \(parent) = ? ORDER BY name COLLATE NOCASE LIMIT ?"),
                                 arguments: [id.rawValue, limit], decode)
        }
        return try decodeAll(db.cachedStatement(sql: """
            SELECT * FROM \(table) WHERE \(parent) = ? AND name > ? COLLATE NOCASE ORDER BY name COLLATE NOCASE LIMIT ?
            """), arguments: [id.rawValue, after, limit], decode)
    }

    /// Creates a child container. Throws `WOPIStoreError.nameTaken(_:)` when a sibling has the name.
    public func createContainer(named name: String, in parentID: ResourceID) async throws -> ContainerRecord {
        try await pool.write { db in
            guard let parent = try Self.container(db, parentID) else { throw WOPIStoreError.notFound }
            if try Row.fetchOne(db, sql: "SELECT 1 FROM containers WHERE parent_id = ? AND name = ? COLLATE NOCASE",
                                arguments: [parentID.rawValue, name]) != nil {
                throw WOPIStoreError.nameTaken(name)
            }
            let container = ContainerRecord(id: .random(), parentID: parentID, ownerID: parent.ownerID, name: name)
            try db.execute(sql: "INSERT INTO containers (id, parent_id, owner_id, name) VALUES (?, ?, ?, ?)",
                           arguments: [container.id.rawValue, parentID.rawValue, parent.ownerID.rawValue, name])
            return container
        }
    }

    /// Renames a container. Throws `WOPIStoreError.nameTaken(_:)` when a sibling has the name.
    public func renameContainer(_ id: ResourceID, to name: String) async throws -> ContainerRecord {
        try await pool.write { db in
            guard var container = try Self.container(db, id) else { throw WOPIStoreError.notFound }
            if let parent = container.parentID,
               try Row.fetchOne(db, sql: "SELECT 1 FROM containers WHERE parent_id = ? AND name = ? COLLATE NOCASE AND id != ?",
                                arguments: [parent.rawValue, name, id.rawValue]) != nil {
                throw WOPIStoreError.nameTaken(name)
            }
            try db.execute(sql: "UPDATE containers SET name = ? WHERE id = ?", arguments: [name, id.rawValue])
            container.name = name
            return container
        }
    }

    /// Deletes an empty, non-root container. Throws `WOPIStoreError.notEmpty` otherwise.
    public func deleteContainer(_ id: ResourceID) async throws {
        try await pool.write { db in
            guard let container = try Self.container(db, id) else { throw WOPIStoreError.notFound }
            let hasChildren = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM containers WHERE parent_id = ?) OR EXISTS (SELECT 1 FROM files WHERE container_id = ?)
                """, arguments: [id.rawValue, id.rawValue]) ?? true
            guard container.parentID != nil, !hasChildren else { throw WOPIStoreError.notEmpty }
            try db.execute(sql: "DELETE FROM containers WHERE id = ?", arguments: [id.rawValue])
        }
    }

    // MARK: Files

    /// The file with this id.
    public func file(id: ResourceID) async throws -> FileRecord? {
        try lookUp { db in try Self.file(db, id) }
    }

    /// The file with this name in a container (case-insensitive).
    public func file(named name: String, in containerID: ResourceID) async throws -> FileRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE container_id = ? AND name = ? COLLATE NOCASE",
                             arguments: [containerID.rawValue, name]).map(Self.file)
        }
    }

    /// Records a new file whose body is already stored.
    public func createFile(named name: String, in containerID: ResourceID, blob: StoredBlob, replacing: Bool, now: Date) async throws
        -> (file: FileRecord, replacedBlob: BlobKey?) {
        try await pool.write { db in
            guard let container = try Self.container(db, containerID) else { throw WOPIStoreError.notFound }
            if let existing = try Row.fetchOne(db, sql: "SELECT * FROM files WHERE container_id = ? AND name = ? COLLATE NOCASE",
                                               arguments: [containerID.rawValue, name]).map(Self.file) {
                guard replacing else { throw WOPIStoreError.nameTaken(existing.name) }
                try existing.requireModifiable(by: nil, now: now)
                let updated = try Self.storeContent(db, existing, blob: blob, now: now)
                // A restored file shares its body with a kept version: that body stays.
                let kept = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM file_versions WHERE blob_key = ?)",
                                             arguments: [existing.blobKey.rawValue]) ?? true
                return (updated, kept ? nil : existing.blobKey)
            }
            let file = FileRecord(id: .random(), containerID: containerID, ownerID: container.ownerID, name: name,
                                  size: blob.size, version: try Self.nextVersion(db), sha256: blob.sha256,
                                  blobKey: blob.key, modifiedAt: now, lock: nil)
            try db.execute(sql: """
                INSERT INTO files (id, container_id, owner_id, name, size, version, sha256, blob_key, modified_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [file.id.rawValue, containerID.rawValue, container.ownerID.rawValue, name, file.size,
                                 file.version, file.sha256, file.blobKey.rawValue, now.timeIntervalSince1970])
            return (file, nil)
        }
    }

    /// Renames a file (the lock rules of `LockRules.Request.modify(_:)` apply); bumps its version.
    public func renameFile(_ id: ResourceID, to name: String, lock: WOPILock?, now: Date) async throws -> FileRecord {
        try await pool.write { db in
            guard var file = try Self.file(db, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            if try Row.fetchOne(db, sql: "SELECT 1 FROM files WHERE container_id = ? AND name = ? COLLATE NOCASE AND id != ?",
                                arguments: [file.containerID.rawValue, name, id.rawValue]) != nil {
                throw WOPIStoreError.nameTaken(name)
            }
            file.name = name
            file.version = try Self.nextVersion(db)
            try db.execute(sql: "UPDATE files SET name = ?, version = ? WHERE id = ?", arguments: [name, file.version, id.rawValue])
            return file
        }
    }

    /// Deletes a file unless someone else holds its lock; returns its blob to delete.
    public func deleteFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> BlobKey {
        try await pool.write { db in
            guard let file = try Self.file(db, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            try db.execute(sql: "DELETE FROM files WHERE id = ?", arguments: [id.rawValue])
            return file.blobKey
        }
    }

    /// Applies a lock request atomically and returns the decision with the file as it is afterwards.
    public func updateLock(_ id: ResourceID, request: LockRules.Request, now: Date) async throws
        -> (decision: LockRules.Decision, file: FileRecord) {
        // Concurrent lock changes share one transaction and one fsync (group commit).
        try await lockChanges.apply(id, request: request, now: now)
    }

    /// Every blob key a file or a kept version (`versions(of:)`) refers to, for garbage collection of orphans.
    public func referencedBlobs() async throws -> Set<BlobKey> {
        try await pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT blob_key FROM files UNION SELECT blob_key FROM file_versions").map { try .stored($0, column: "blob_key") })
        }
    }

    // MARK: Secrets

    /// A host-wide secret, created with `make` the first time it is asked for and shared by every
    /// process and machine using this store.
    public func hostSecret(named name: String, orCreate make: @Sendable () -> Data) async throws -> Data {
        try await pool.write { db in
            if let existing = try Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]) {
                return existing
            }
            let value = make()
            try db.execute(sql: "INSERT INTO settings (name, value) VALUES (?, ?)", arguments: [name, value])
            return value
        }
    }

    /// A host setting others may read, such as the public URL `wopi serve` last ran under.
    public func hostSetting(named name: String) async throws -> String? {
        try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]).flatMap { String(data: $0, encoding: .utf8) }
        }
    }

    /// Stores a host setting.
    public func setHostSetting(_ value: String, named name: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                           arguments: [name, Data(value.utf8)])
        }
    }

    // MARK: Rows

    private static func storeContent(_ db: Database, _ file: FileRecord, blob: StoredBlob, now: Date) throws -> FileRecord {
        var updated = file
        updated.size = blob.size
        updated.sha256 = blob.sha256
        updated.blobKey = blob.key
        updated.modifiedAt = now
        updated.version = try nextVersion(db)
        try db.execute(sql: "UPDATE files SET size = ?, sha256 = ?, blob_key = ?, modified_at = ?, version = ?, modified_by = NULL WHERE id = ?",
                       arguments: [blob.size, blob.sha256, blob.key.rawValue, now.timeIntervalSince1970, updated.version, file.id.rawValue])
        return updated
    }

    static func nextVersion(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE version_counter SET value = value + 1 WHERE id = 1")
        return try Int64.fetchOne(db, sql: "SELECT value FROM version_counter WHERE id = 1") ?? 0
    }

    static func container(_ db: Database, _ id: ResourceID) throws -> ContainerRecord? {
        try decodeOne(db.cachedStatement(sql: "SELECT * FROM containers WHERE id = ? AND trash_id IS NULL"), arguments: [id.rawValue], container)
    }

    static func file(_ db: Database, _ id: ResourceID) throws -> FileRecord? {
        try decodeOne(db.cachedStatement(sql: "SELECT * FROM files WHERE id = ? AND trash_id IS NULL"), arguments: [id.rawValue], file)
    }

    /// The first row of `statement`, decoded while SQLite holds it.
    ///
    /// GRDB's `Row.fetchOne` returns a copy of the row, and a copied row finds a column by name by
    /// lower-casing every column name it passes: a tenth of CheckFileInfo's profile. The row a cursor
    /// yields looks names up in a table built once per statement run.
    static func decodeOne<Record>(_ statement: Statement, arguments: StatementArguments, _ decode: (Row) throws -> Record) throws -> Record? {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        // The cursor resets the statement when it goes, so it must outlive the decoding.
        return try withExtendedLifetime(rows) { try rows.next().map(decode) }
    }

    /// Every row of `statement`, each decoded while SQLite holds it (see ``decodeOne(_:arguments:_:)``).
    static func decodeAll<Record>(_ statement: Statement, arguments: StatementArguments, _ decode: (Row) throws -> Record) throws -> [Record] {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var records: [Record] = []
        while let row = try rows.next() { records.append(try decode(row)) }
        return records
    }

    static func id(_ row: Row, _ column: String) throws -> ResourceID {
        try .stored(row[column], column: column)
    }

    /// A user from a row of `users`.
    static func user(_ row: Row) throws -> UserRecord {
        UserRecord(id: try id(row, "id"), name: row["name"], displayName: row["display_name"],
                   passwordHash: PasswordHash(stored: row["password_hash"]),
                   rootContainerID: try id(row, "root_container_id"), userInfo: row["user_info"])
    }

    static func container(_ row: Row) throws -> ContainerRecord {
        let parent: String? = row["parent_id"]
        return ContainerRecord(id: try id(row, "id"), parentID: try parent.storedID(column: "parent_id"), ownerID: try id(row, "owner_id"), name: row["name"])
    }

    static func file(_ row: Row) throws -> FileRecord {
        let lockValue: String? = row["lock_value"]
        let lockExpiry: Double? = row["lock_expires_at"]
        let lock = lockValue.flatMap(WOPILock.init).flatMap { lock in
            lockExpiry.map { LockState(lock: lock, expiresAt: Date(timeIntervalSince1970: $0)) }
        }
        return FileRecord(id: try id(row, "id"), containerID: try id(row, "container_id"), ownerID: try id(row, "owner_id"),
                          name: row["name"], size: row["size"], version: row["version"], sha256: row["sha256"],
                          blobKey: try .stored(row["blob_key"], column: "blob_key"),
                          modifiedAt: Date(timeIntervalSince1970: row["modified_at"]), lock: lock)
    }
}
