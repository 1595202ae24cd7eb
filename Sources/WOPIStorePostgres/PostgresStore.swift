import Foundation
import WOPIHost
import Logging
import NIOSSL
import PostgresNIO
import WOPICore
import WOPIStoreSQL

/// A `WOPIStore` on PostgreSQL, for several hosts sharing one database.
///
/// Every change that reads and then writes (saves, renames, one-time codes) runs in one transaction
/// that first takes the row's lock (`SELECT … FOR UPDATE`), so two hosts racing on one file serialize
/// in the database and exactly one compare-and-set wins; a lock change is a compare-and-set in one
/// statement, retried on what won. The statements every WOPI request runs are prepared once per
/// connection, and the file lookups and lock changes of requests that arrive together share one
/// statement. Nothing is cached in the process: each request sees what the last host committed.
public final class PostgresStore: WOPIStore {
    /// The connection pool, supervised: a database that goes away gets `StoreUnavailable` within about a second.
    let connections: SupervisedPostgresClient
    let logger: Logger
    /// `fileAccess(_:by:)`, which every WOPI request makes first, in batches of the calls that arrive together.
    let fileAccesses: StatementBatcher<(file: String, user: String), PostgresStatements.FileAccess.Access?>
    /// Lock compare-and-sets, in batches of the calls that arrive together: one statement and one commit each.
    let lockChanges: StatementBatcher<PostgresStatements.SetLocks.Change, PostgresStatements.FileRow?>

    /// The pool in use, for tests that tamper with the database behind the store's back.
    var client: PostgresClient {
        get throws {
            guard let client = connections.client else { throw StoreUnavailable("the database is unavailable") }
            return client
        }
    }

    /// Connects to `url`, applies missing migrations, and starts the connection pool.
    ///
    /// Throws ``PostgresStoreError/unreachable(_:reason:)`` when the server cannot be reached or refuses
    /// the sign-in, and `StoreSchemaError/newerThanBinary(found:supported:)` when a newer WOPIKit has
    /// migrated the database. Call ``close()`` when done.
    ///
    /// Once connected, a database that stops answering makes every call throw `StoreUnavailable` within
    /// about a second, and at once after that, until it answers again; no restart is needed.
    public static func connect(to url: PostgresDatabaseURL, maximumConnections: Int = defaultConnections, logger: Logger = Logger(label: "wopi.postgres")) async throws -> PostgresStore {
        let tls = try Self.tls(url.tls)
        var connectionConfiguration: PostgresConnection.Configuration
        var clientConfiguration: PostgresClient.Configuration
        if let socket = url.socketPath {
            connectionConfiguration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
            clientConfiguration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } else {
            connectionConfiguration = .init(host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                                            tls: tls.connection)
            clientConfiguration = .init(host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                                        tls: tls.client)
        }
        connectionConfiguration.options.connectTimeout = .seconds(10)
        clientConfiguration.options.maximumConnections = maximumConnections
        // Every connection stays open and none is pinged: on each return of a connection the pool otherwise arms an
        // idle timer and a keep-alive timer, which cost more than a lookup. The supervisor notices a broken connection.
        clientConfiguration.options.minimumConnections = maximumConnections
        clientConfiguration.options.keepAliveBehavior = nil
        // Batched statements take arrays, and PostgreSQL would plan them again for each execution (0.2 ms) rather
        // than use the plan it prepared. (PostgreSQL 12 or newer.)
        clientConfiguration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
        // Migrate on one connection first: it also proves the URL works before the pool starts retrying.
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: connectionConfiguration, id: 0, logger: logger)
        } catch {
            throw PostgresStoreError.unreachable(url, reason: Self.reason(error))
        }
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            if error is StoreSchemaError { throw error }
            throw PostgresStoreError.migrationFailed(url, reason: Self.reason(error))
        }
        let connections = await SupervisedPostgresClient(configuration: clientConfiguration, probeConfiguration: connectionConfiguration,
                                                         logger: logger)
        return PostgresStore(connections: connections, logger: logger)
    }

    /// Connections each host keeps open: four per core, at most 16. With lookups and lock changes batched, more only
    /// wait in the database (measured on 2 cores: 8 beat 4 and 16).
    public static var defaultConnections: Int { min(16, 4 * System.coreCount) }

    /// Batches of one kind in flight at once: one per two cores, since the host and a local database share
    /// them (measured on 2 cores: one batch in flight beat two by 5–10 %).
    static var batchesInFlight: Int { max(1, System.coreCount / 2) }

    private init(connections: SupervisedPostgresClient, logger: Logger) {
        self.connections = connections
        self.logger = logger
        fileAccesses = StatementBatcher(limit: Self.batchesInFlight) { pairs in
            let statement = PostgresStatements.FileAccess(fileIDs: pairs.map(\.file), userIDs: pairs.map(\.user))
            return try await Self.answers(to: pairs.count, from: Self.rows(of: statement, on: connections, logger: logger)) { ($0.position, $0.access) }
        }
        lockChanges = StatementBatcher(limit: Self.batchesInFlight) { changes in
            let statement = PostgresStatements.SetLocks(changes: changes)
            return try await Self.answers(to: changes.count, from: Self.rows(of: statement, on: connections, logger: logger)) { ($0.position, $0.file) }
        }
    }

    /// One answer per call of a batch from the rows of its statement, each row naming its call's position (from 1);
    /// a call without a row gets `nil`.
    private static func answers<Row, Value>(to calls: Int, from rows: [Row], _ positioned: (Row) -> (position: Int64, value: Value)) -> [Value?] {
        var answers = [Value?](repeating: nil, count: calls)
        for (position, value) in rows.map(positioned) where (1...Int64(calls)).contains(position) { answers[Int(position) - 1] = value }
        return answers
    }

    /// Closes every connection. Queries after this fail.
    public func close() async {
        await connections.close()
    }

    // MARK: Users

    /// Creates a user with an empty root container. Throws `WOPIStoreError.nameTaken(_:)` for a duplicate name.
    public func createUser(name: String, displayName: String, passwordHash: PasswordHash) async throws -> UserRecord {
        let user = UserRecord(id: .random(), name: name, displayName: displayName, passwordHash: passwordHash, rootContainerID: .random())
        let rootName = WOPIName.sanitized("\(displayName)'s files").rawValue
        do {
            try await transaction { connection in
                try await connection.query("""
                    INSERT INTO users (id, name, display_name, password_hash, root_container_id)
                    VALUES (\(user.id.rawValue), \(name), \(displayName), \(passwordHash.encoded), \(user.rootContainerID.rawValue))
                    """, logger: self.logger)
                try await connection.query("""
                    INSERT INTO containers (id, parent_id, owner_id, name) VALUES (\(user.rootContainerID.rawValue), NULL, \(user.id.rawValue), \(rootName))
                    """, logger: self.logger)
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw WOPIStoreError.nameTaken(name)
        }
        return user
    }

    /// The user with this id.
    public func user(id: ResourceID) async throws -> UserRecord? {
        try await first("SELECT \(unescaped: Columns.user) FROM users WHERE id = \(id.rawValue)", Self.user)
    }

    /// The user with this sign-in name (case-insensitive).
    public func user(named name: String) async throws -> UserRecord? {
        try await first("SELECT \(unescaped: Columns.user) FROM users WHERE wopi_fold(name) = wopi_fold(\(name))", Self.user)
    }

    /// All users, by name.
    public func users() async throws -> [UserRecord] {
        try await all("SELECT \(unescaped: Columns.user) FROM users ORDER BY wopi_fold(name) COLLATE \"C\", id", Self.user)
    }

    /// Removes a user with all their containers and files; returns the blobs to delete.
    public func removeUser(id: ResourceID) async throws -> [BlobKey] {
        try await transaction { connection in
            // Kept versions' bodies first: deleting the files removes their version rows with them.
            let kept = try await Self.all(connection, """
                SELECT v.blob_key FROM file_versions v JOIN files f ON f.id = v.file_id WHERE f.owner_id = \(id.rawValue)
                """, logger: self.logger) { try $0.decode(String.self) }
            let current = try await Self.all(connection, "DELETE FROM files WHERE owner_id = \(id.rawValue) RETURNING blob_key", logger: self.logger) {
                try $0.decode(String.self)
            }
            let blobs = Array(Set(kept + current))
            // Foreign keys are checked at the end of the statement, so one DELETE removes the whole tree.
            try await connection.query("DELETE FROM containers WHERE owner_id = \(id.rawValue)", logger: self.logger)
            let removed = try await Self.all(connection, "DELETE FROM users WHERE id = \(id.rawValue) RETURNING id", logger: self.logger) {
                try $0.decode(String.self)
            }
            guard !removed.isEmpty else { throw WOPIStoreError.notFound }
            return try blobs.map { try .stored($0, column: "blob_key") }
        }
    }

    /// Stores PutUserInfo's value for a user.
    public func setUserInfo(_ info: String, for userID: ResourceID) async throws {
        let updated = try await all("UPDATE users SET user_info = \(info) WHERE id = \(userID.rawValue) RETURNING id") { try $0.decode(String.self) }
        guard !updated.isEmpty else { throw WOPIStoreError.notFound }
    }

    /// Replaces a user's password hash and, in the same transaction, ends every web session of theirs
    /// (`WebSessionStore`), so a new password signs out every browser. Returns how many sessions ended;
    /// throws `WOPIStoreError.notFound` for an unknown user.
    public func setPasswordHash(_ hash: PasswordHash, for userID: ResourceID) async throws -> Int {
        try await transaction { connection in
            let updated = try await Self.all(connection, "UPDATE users SET password_hash = \(hash.encoded) WHERE id = \(userID.rawValue) RETURNING id",
                                             logger: self.logger) { try $0.decode(String.self) }
            guard !updated.isEmpty else { throw WOPIStoreError.notFound }
            return try await Self.all(connection, "DELETE FROM web_sessions WHERE user_id = \(userID.rawValue) RETURNING 1",
                                      logger: self.logger) { try $0.decode(Int32.self) }.count
        }
    }

    // MARK: Containers

    /// The container with this id.
    public func container(id: ResourceID) async throws -> ContainerRecord? {
        try await first("SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(id.rawValue) AND trash_id IS NULL", Self.container)
    }

    /// The path from the owner's root down to and including this container.
    public func containerPath(to id: ResourceID) async throws -> [ContainerRecord] {
        // One round trip: walk up the parents in the database (bounded, as the SQLite store is).
        let path = try await all("""
            WITH RECURSIVE path(id, parent_id, owner_id, name, depth) AS (
                SELECT id, parent_id, owner_id, name, 0 FROM containers WHERE id = \(id.rawValue)
                UNION ALL
                SELECT c.id, c.parent_id, c.owner_id, c.name, p.depth + 1 FROM containers c JOIN path p ON c.id = p.parent_id WHERE p.depth < 256
            )
            SELECT \(unescaped: Columns.container) FROM path ORDER BY depth DESC
            """, Self.container)
        guard !path.isEmpty else { throw WOPIStoreError.notFound }
        return path
    }

    /// The direct children of a container, each list sorted by name.
    public func children(of id: ResourceID) async throws -> (containers: [ContainerRecord], files: [FileRecord]) {
        try await transaction { connection in
            guard try await Self.first(connection, "SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(id.rawValue) AND trash_id IS NULL",
                                       logger: self.logger, Self.container) != nil else { throw WOPIStoreError.notFound }
            let containers = try await Self.all(connection, """
                SELECT \(unescaped: Columns.container) FROM containers WHERE parent_id = \(id.rawValue) ORDER BY wopi_fold(name) COLLATE "C", id
                """, logger: self.logger, Self.container)
            let files = try await Self.all(connection, """
                SELECT \(unescaped: Columns.file) FROM files WHERE container_id = \(id.rawValue) ORDER BY wopi_fold(name) COLLATE "C", id
                """, logger: self.logger, Self.file)
            return (containers, files)
        }
    }

    /// Up to `limit` direct child containers of a container, sorted by name as in `children(of:)`,
    /// starting after the child named `after` (case-insensitively) when it is given.
    public func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord] {
        try await page(Columns.container, from: "containers", parent: "parent_id", id: id, after: after, limit: limit, Self.container)
    }

    /// Up to `limit` files of a container, sorted by name as in `children(of:)`, starting after the
    /// file named `after` (case-insensitively) when it is given. Same paging rules as
    /// `childContainers(of:after:limit:)`.
    public func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord] {
        try await page(Columns.file, from: "files", parent: "container_id", id: id, after: after, limit: limit, Self.file)
    }

    /// Up to `limit` rows of `table` under `parent` = `id`, by folded name, after the name `after` when given.
    private func page<Value>(_ columns: String, from table: String, parent: String, id: ResourceID, after: String?, limit: Int,
                             _ decode: (PostgresRow) throws -> Value) async throws -> [Value] {
        guard let after else {
            return try await all("""
                SELECT \(unescaped: columns) FROM \(unescaped: table) WHERE \(unescaped: parent) = \(id.rawValue)
                ORDER BY wopi_fold(name) COLLATE "C", id LIMIT \(limit)
                """, decode)
        }
        return try await all("""
            SELECT \(unescaped: columns) FROM \(unescaped: table) WHERE \(unescaped: parent) = \(id.rawValue)
            AND wopi_fold(name) COLLATE "C" > wopi_fold(\(after)) COLLATE "C" ORDER BY wopi_fold(name) COLLATE "C", id LIMIT \(limit)
            """, decode)
    }

    /// Creates a child container. Throws `WOPIStoreError.nameTaken(_:)` when a sibling has the name.
    public func createContainer(named name: String, in parentID: ResourceID) async throws -> ContainerRecord {
        do {
            return try await transaction { connection in
                guard let parent = try await Self.first(connection, "SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(parentID.rawValue) AND trash_id IS NULL",
                                                        logger: self.logger, Self.container) else { throw WOPIStoreError.notFound }
                let container = ContainerRecord(id: .random(), parentID: parentID, ownerID: parent.ownerID, name: name)
                try await connection.query("""
                    INSERT INTO containers (id, parent_id, owner_id, name)
                    VALUES (\(container.id.rawValue), \(parentID.rawValue), \(parent.ownerID.rawValue), \(name))
                    """, logger: self.logger)
                return container
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw WOPIStoreError.nameTaken(name)
        }
    }

    /// Renames a container. Throws `WOPIStoreError.nameTaken(_:)` when a sibling has the name.
    public func renameContainer(_ id: ResourceID, to name: String) async throws -> ContainerRecord {
        do {
            return try await transaction { connection in
                guard var container = try await Self.first(connection, "SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(id.rawValue) AND trash_id IS NULL FOR UPDATE",
                                                           logger: self.logger, Self.container) else { throw WOPIStoreError.notFound }
                try await connection.query("UPDATE containers SET name = \(name) WHERE id = \(id.rawValue)", logger: self.logger)
                container.name = name
                return container
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw WOPIStoreError.nameTaken(name)
        }
    }

    /// Deletes an empty, non-root container. Throws `WOPIStoreError.notEmpty` otherwise.
    public func deleteContainer(_ id: ResourceID) async throws {
        try await transaction { connection in
            guard let container = try await Self.first(connection, "SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(id.rawValue) AND trash_id IS NULL FOR UPDATE",
                                                       logger: self.logger, Self.container) else { throw WOPIStoreError.notFound }
            let hasChildren = try await Self.first(connection, """
                SELECT EXISTS (SELECT 1 FROM containers WHERE parent_id = \(id.rawValue)) OR EXISTS (SELECT 1 FROM files WHERE container_id = \(id.rawValue))
                """, logger: self.logger) { try $0.decode(Bool.self) } ?? true
            guard container.parentID != nil, !hasChildren else { throw WOPIStoreError.notEmpty }
            try await connection.query("DELETE FROM containers WHERE id = \(id.rawValue)", logger: self.logger)
        }
    }

    // MARK: Files

    /// The file with this id.
    public func file(id: ResourceID) async throws -> FileRecord? {
        try await first("SELECT \(unescaped: Columns.file) FROM files WHERE id = \(id.rawValue) AND trash_id IS NULL", Self.file)
    }

    /// The file with this name in a container (case-insensitive).
    public func file(named name: String, in containerID: ResourceID) async throws -> FileRecord? {
        try await first("""
            SELECT \(unescaped: Columns.file) FROM files WHERE container_id = \(containerID.rawValue) AND wopi_fold(name) = wopi_fold(\(name))
            """, Self.file)
    }

    /// Records a new file whose body is already stored.
    public func createFile(named name: String, in containerID: ResourceID, blob: StoredBlob, replacing: Bool, now: Date) async throws
        -> (file: FileRecord, replacedBlob: BlobKey?) {
        do {
            return try await transaction { connection in
                guard let container = try await Self.first(connection, "SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(containerID.rawValue) AND trash_id IS NULL",
                                                           logger: self.logger, Self.container) else { throw WOPIStoreError.notFound }
                if let existing = try await Self.first(connection, """
                    SELECT \(unescaped: Columns.file) FROM files WHERE container_id = \(containerID.rawValue) AND wopi_fold(name) = wopi_fold(\(name)) FOR UPDATE
                    """, logger: self.logger, Self.file) {
                    guard replacing else { throw WOPIStoreError.nameTaken(existing.name) }
                    try existing.requireModifiable(by: nil, now: now)
                    let updated = try await self.storeContent(connection, existing, blob: blob, now: now)
                    // A restored file shares its body with a kept version: that body stays.
                    let kept = try await Self.first(connection, "SELECT EXISTS (SELECT 1 FROM file_versions WHERE blob_key = \(existing.blobKey.rawValue))",
                                                    logger: self.logger) { try $0.decode(Bool.self) } ?? true
                    return (updated, kept ? nil : existing.blobKey)
                }
                let file = FileRecord(id: .random(), containerID: containerID, ownerID: container.ownerID, name: name, size: blob.size,
                                      version: try await self.nextVersion(connection), sha256: blob.sha256, blobKey: blob.key,
                                      modifiedAt: now, lock: nil)
                try await connection.query("""
                    INSERT INTO files (id, container_id, owner_id, name, size, version, sha256, blob_key, modified_at)
                    VALUES (\(file.id.rawValue), \(containerID.rawValue), \(container.ownerID.rawValue), \(name), \(file.size), \(file.version),
                            \(file.sha256), \(file.blobKey.rawValue), \(now.timeIntervalSince1970))
                    """, logger: self.logger)
                return (file, nil)
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw WOPIStoreError.nameTaken(name)
        }
    }

    /// Renames a file (the lock rules of `LockRules.Request.modify(_:)` apply); bumps its version.
    public func renameFile(_ id: ResourceID, to name: String, lock: WOPILock?, now: Date) async throws -> FileRecord {
        do {
            return try await transaction { connection in
                guard var file = try await self.lockedFile(connection, id) else { throw WOPIStoreError.notFound }
                try file.requireModifiable(by: lock, now: now)
                file.name = name
                file.version = try await self.nextVersion(connection)
                try await connection.query("UPDATE files SET name = \(name), version = \(file.version) WHERE id = \(id.rawValue)", logger: self.logger)
                return file
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw WOPIStoreError.nameTaken(name)
        }
    }

    /// Deletes a file unless someone else holds its lock; returns its blob to delete.
    public func deleteFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> BlobKey {
        try await transaction { connection in
            guard let file = try await self.lockedFile(connection, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            try await connection.query("DELETE FROM files WHERE id = \(id.rawValue)", logger: self.logger)
            return file.blobKey
        }
    }

    /// Applies a lock request atomically and returns the decision with the file as it is afterwards.
    public func updateLock(_ id: ResourceID, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        guard let row = try await first(PostgresStatements.File(id: id.rawValue)) else { throw WOPIStoreError.notFound }
        return try await updateLock(try Self.file(row), request: request, now: now)
    }

    /// Applies a lock request atomically, deciding first on `file` as the caller read it.
    public func updateLock(_ file: FileRecord, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        // A compare-and-set instead of a transaction: decide on the row as read, and write only if the lock is still that
        // one. A concurrent change makes the write match no row, and the request is decided again on what won; so a race
        // has exactly one winner, in one prepared round trip after the read instead of four (BEGIN, SELECT … FOR UPDATE,
        // UPDATE, COMMIT). The caller's read counts as the first one.
        var file = file
        // The lock columns as stored: from the caller's record at first, then from each row read again (so a row
        // whose lock columns do not make a lock still matches, and the loop ends).
        var stored = (value: file.lock?.lock.value, expiry: file.lock?.expiresAt.timeIntervalSince1970)
        while true {
            let decision = LockRules.evaluate(request, current: file.lock, now: now)
            guard case .granted(let newState) = decision, newState != file.lock else { return (decision, file) }
            let change = PostgresStatements.SetLocks.Change(id: file.id.rawValue, newValue: newState?.lock.value,
                                                            newExpiry: newState?.expiresAt.timeIntervalSince1970, oldValue: stored.value,
                                                            oldExpiry: stored.expiry)
            if let updated = try await lockChanges.run(change) { return (decision, try Self.file(updated)) }
            guard let row = try await first(PostgresStatements.File(id: file.id.rawValue)) else { throw WOPIStoreError.notFound }
            file = try Self.file(row)
            stored = (row.9, row.10)
        }
    }

    /// Every blob key a file or a kept version (`versions(of:)`) refers to, for garbage collection of orphans.
    public func referencedBlobs() async throws -> Set<BlobKey> {
        Set(try await all("SELECT blob_key FROM files UNION SELECT blob_key FROM file_versions") { try $0.decode(String.self) }.map { try .stored($0, column: "blob_key") })
    }

    // MARK: Secrets

    /// A host-wide secret, created with `make` the first time it is asked for and shared by every
    /// process and machine using this store.
    public func hostSecret(named name: String, orCreate make: @Sendable () -> Data) async throws -> Data {
        if let existing = try await first("SELECT value FROM settings WHERE name = \(name)", { try $0.decode(Data.self) }) { return existing }
        // Two hosts starting at once: the first insert wins and both read its value.
        try await execute("INSERT INTO settings (name, value) VALUES (\(name), \(make())) ON CONFLICT (name) DO NOTHING")
        guard let stored = try await first("SELECT value FROM settings WHERE name = \(name)", { try $0.decode(Data.self) }) else {
            throw WOPIStoreError.notFound
        }
        return stored
    }

    /// A host setting others may read, such as the public URL `wopi serve` last ran under.
    public func hostSetting(named name: String) async throws -> String? {
        try await first("SELECT value FROM settings WHERE name = \(name)") { String(decoding: try $0.decode(Data.self), as: UTF8.self) }
    }

    /// Stores a host setting.
    public func setHostSetting(_ value: String, named name: String) async throws {
        try await execute("""
            INSERT INTO settings (name, value) VALUES (\(name), \(Data(value.utf8))) ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """)
    }

    // MARK: Helpers

    private func storeContent(_ connection: PostgresConnection, _ file: FileRecord, blob: StoredBlob, now: Date) async throws -> FileRecord {
        var updated = file
        updated.size = blob.size
        updated.sha256 = blob.sha256
        updated.blobKey = blob.key
        updated.modifiedAt = now
        updated.version = try await nextVersion(connection)
        try await connection.query("""
            UPDATE files SET size = \(blob.size), sha256 = \(blob.sha256), blob_key = \(blob.key.rawValue),
                             modified_at = \(now.timeIntervalSince1970), version = \(updated.version), modified_by = NULL
            WHERE id = \(file.id.rawValue)
            """, logger: logger)
        return updated
    }

    func nextVersion(_ connection: PostgresConnection) async throws -> Int64 {
        try await Self.first(connection, "SELECT nextval('file_version_numbers')", logger: logger) { try $0.decode(Int64.self) } ?? 0
    }

    /// The file's row, locked until the transaction ends: the read half of every compare-and-set.
    func lockedFile(_ connection: PostgresConnection, _ id: ResourceID) async throws -> FileRecord? {
        try await Self.first(connection, "SELECT \(unescaped: Columns.file) FROM files WHERE id = \(id.rawValue) AND trash_id IS NULL FOR UPDATE", logger: logger, Self.file)
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws; the error
    /// `body` threw (a `WOPIStoreError`, a unique violation) reaches the caller unwrapped.
    func transaction<Result>(isolation: isolated (any Actor)? = #isolation,
                             _ body: (PostgresConnection) async throws -> sending Result) async throws -> sending Result {
        try await connections.run(isolation: isolation) { client in
            try await client.withTransaction(logger: logger, isolation: isolation, body)
        }
    }

    /// Runs one statement whose rows do not matter.
    func execute(_ query: PostgresQuery) async throws {
        try await connections.run { client in _ = try await client.query(query, logger: logger) }
    }

    /// The first row of a prepared statement (``PostgresStatements``), if any.
    func first<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Statement.Row? where Statement.Row: Sendable {
        try await Self.rows(of: statement, on: connections, logger: logger).first
    }

    /// Every row of a prepared statement (``PostgresStatements``).
    static func rows<Statement: PostgresPreparedStatement>(of statement: Statement, on connections: SupervisedPostgresClient,
                                                           logger: Logger) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await connections.run { client in
            var rows: [Statement.Row] = []
            for try await row in try await client.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    func first<Value>(_ query: PostgresQuery, _ decode: (PostgresRow) throws -> Value) async throws -> Value? {
        try await all(query, decode).first
    }

    func all<Value>(_ query: PostgresQuery, _ decode: (PostgresRow) throws -> Value) async throws -> [Value] {
        try await connections.run { client in
            var values: [Value] = []
            for try await row in try await client.query(query, logger: logger) { values.append(try decode(row)) }
            return values
        }
    }

    static func first<Value>(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger,
                             _ decode: (PostgresRow) throws -> Value) async throws -> Value? {
        try await all(connection, query, logger: logger, decode).first
    }

    static func all<Value>(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger,
                           _ decode: (PostgresRow) throws -> Value) async throws -> [Value] {
        var values: [Value] = []
        for try await row in try await connection.query(query, logger: logger) { values.append(try decode(row)) }
        return values
    }

    // MARK: Rows

    enum Columns {
        static let user = "id, name, display_name, password_hash, root_container_id, user_info"
        static let container = "id, parent_id, owner_id, name"
        static let file = "id, container_id, owner_id, name, size, version, sha256, blob_key, modified_at, lock_value, lock_expires_at"

        /// ``file``, each column qualified by `table`, for statements that join.
        static func file(of table: String) -> String {
            file.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
        }
    }

    static func id(_ text: String) throws -> ResourceID {
        try .stored(text, column: "id")
    }

    static func user(_ row: PostgresRow) throws -> UserRecord {
        try user(try row.decode((String, String, String, String, String, String?).self))
    }

    /// A user from the columns of ``Columns/user``, in order; also for rows that join more columns.
    static func user(_ columns: (id: String, name: String, displayName: String, hash: String, root: String, info: String?)) throws -> UserRecord {
        UserRecord(id: try id(columns.id), name: columns.name, displayName: columns.displayName, passwordHash: PasswordHash(stored: columns.hash),
                   rootContainerID: try id(columns.root), userInfo: columns.info)
    }

    static func container(_ row: PostgresRow) throws -> ContainerRecord {
        let (id, parent, owner, name) = try row.decode((String, String?, String, String).self)
        return ContainerRecord(id: try Self.id(id), parentID: try parent.storedID(column: "containers.parent_id"), ownerID: try Self.id(owner), name: name)
    }

    static func file(_ row: PostgresRow) throws -> FileRecord {
        try file(try row.decode((String, String, String, String, Int64, Int64, String, String, Double, String?, Double?).self))
    }

    /// A file from the columns of ``Columns/file``, in order; also for rows that join more columns.
    static func file(_ columns: (String, String, String, String, Int64, Int64, String, String, Double, String?, Double?)) throws -> FileRecord {
        let (id, container, owner, name, size, version, sha256, blobKey, modified, lockValue, lockExpiry) = columns
        let lock = lockValue.flatMap(WOPILock.init).flatMap { lock in
            lockExpiry.map { LockState(lock: lock, expiresAt: Date(timeIntervalSince1970: $0)) }
        }
        return FileRecord(id: try Self.id(id), containerID: try Self.id(container), ownerID: try Self.id(owner), name: name, size: size,
                          version: version, sha256: sha256, blobKey: try .stored(blobKey, column: "files.blob_key"),
                          modifiedAt: Date(timeIntervalSince1970: modified), lock: lock)
    }

    // MARK: Connection set-up

    private static func tls(_ mode: PostgresDatabaseURL.TLSMode) throws -> (connection: PostgresConnection.Configuration.TLS, client: PostgresClient.Configuration.TLS) {
        switch mode {
        case .disable: return (.disable, .disable)
        case .prefer:
            let configuration = TLSConfiguration.makeClientConfiguration()
            return (.prefer(try NIOSSLContext(configuration: configuration)), .prefer(configuration))
        case .require:
            let configuration = TLSConfiguration.makeClientConfiguration()
            return (.require(try NIOSSLContext(configuration: configuration)), .require(configuration))
        }
    }

    /// A short reason for a connection failure, without the URL's password (PostgresNIO's errors never carry it).
    static func reason(_ error: any Error) -> String {
        if let error = error as? PostgresTransactionError, let inner = error.closureError ?? error.beginError ?? error.commitError {
            return reason(inner)
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Errors opening a ``PostgresStore``.
public enum PostgresStoreError: Error, Sendable, CustomStringConvertible {
    /// The server could not be reached, or refused the connection or the sign-in.
    case unreachable(PostgresDatabaseURL, reason: String)
    /// The schema could not be brought up to date (missing privileges, a conflicting table).
    case migrationFailed(PostgresDatabaseURL, reason: String)

    /// One line naming the server and the reason, with the password masked.
    public var description: String {
        switch self {
        case .unreachable(let url, let reason): "cannot connect to the database at \(url.endpoint) (\(url.description)): \(reason)"
        case .migrationFailed(let url, let reason): "cannot migrate the database \(url.description): \(reason)"
        }
    }
}

extension PSQLError {
    /// SQLSTATE 23505: a unique index refused the row (a name taken by a concurrent writer).
    var isUniqueViolation: Bool { serverInfo?[.sqlState] == "23505" }
}
