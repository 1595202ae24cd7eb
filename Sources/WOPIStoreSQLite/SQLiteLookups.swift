import Foundation
import WOPIHost
import GRDB
import GRDBSQLite
import WOPICore
import WOPIStoreSQL

/// The per-request reads of ``SQLiteStore`` (the caller with the file or folder they name), run on
/// SQLite's C API over connections of their own.
///
/// Through GRDB's pool such a read crossed a barrier queue, a reader's serial queue and a
/// `PRAGMA schema_version` check, and decoded columns by name: about 40 µs of CheckFileInfo's
/// 90 µs of CPU on the benchmark machine, where SQLite answers the statement itself in about 6 µs.
/// Here a read takes a connection from a slot, steps one prepared statement and reads its columns by
/// position.
///
/// Each statement runs alone, in SQLite's own read transaction, so it sees the last commit of any
/// process sharing the database; nothing but compiled statements is kept between reads.
final class SQLiteLookups: Sendable {
    private let path: String
    /// Connections in slots, each behind its own lock. A thread starts at the slot its id picks and
    /// takes the first free one, so the threads running requests rarely meet on a lock (a shared free
    /// list was contended by every read). A slot opens its connection on first use.
    private let slots: [Slot]

    /// Unchecked `Sendable`: `connection` (a C handle) is touched only while `lock` is held.
    private final class Slot: @unchecked Sendable {
        let lock = NSLock()
        var connection: Connection?
    }

    init(path: String, slots count: Int = 8) {
        self.path = path
        slots = (0..<max(count, 1)).map { _ in Slot() }
    }

    deinit {
        for slot in slots { slot.connection?.close() }
    }

    // MARK: Reads

    /// The user with the file and their share roles, as ``SQLiteStore/fileAccess(_:by:)`` describes.
    func fileAccess(_ fileID: ResourceID, by userID: ResourceID) throws -> FileAccess? {
        try read(.fileAccess, fileID.rawValue, userID.rawValue) { row in
            let user = try row.user(at: 0)
            guard !row.isNull(Self.userColumns.count) else {
                return FileAccess(user: user, file: nil, role: nil, containerRole: nil, containerName: "")
            }
            let next = Self.userColumns.count + Self.fileColumns.count
            return FileAccess(user: user, file: try row.file(at: Self.userColumns.count), containerName: try row.text(next),
                              folderShare: try row.optionalText(next + 1).flatMap(AccessRole.init(rawValue:)),
                              fileShare: try row.optionalText(next + 2).flatMap(AccessRole.init(rawValue:)))
        }
    }

    /// The user with the folder and their share role, as ``SQLiteStore/containerAccess(_:by:)`` describes.
    func containerAccess(_ containerID: ResourceID, by userID: ResourceID) throws -> ContainerAccess? {
        try read(.containerAccess, containerID.rawValue, userID.rawValue) { row in
            let user = try row.user(at: 0)
            guard !row.isNull(Self.userColumns.count) else { return ContainerAccess(user: user, container: nil, role: nil) }
            return ContainerAccess(user: user, container: try row.container(at: Self.userColumns.count),
                                   sharedRole: try row.optionalText(Self.userColumns.count + Self.containerColumns.count).flatMap(AccessRole.init(rawValue:)))
        }
    }

    /// The user with `id`.
    func user(_ id: ResourceID) throws -> UserRecord? {
        try read(.user, id.rawValue) { try $0.user(at: 0) }
    }

    /// The file with `id`, unless it is in the trash.
    func file(_ id: ResourceID) throws -> FileRecord? {
        try read(.file, id.rawValue) { try $0.file(at: 0) }
    }

    /// The folder with `id`, unless it is in the trash.
    func container(_ id: ResourceID) throws -> ContainerRecord? {
        try read(.container, id.rawValue) { try $0.container(at: 0) }
    }

    /// Up to `limit` child folders of `parentID` by name (`NOCASE`), after the name `after` when given: a walk of
    /// the `(parent, name NOCASE)` unique index.
    func containers(in parentID: ResourceID, after: String?, limit: Int) throws -> [ContainerRecord] {
        try readAll(after == nil ? .containersPage : .containersPageAfter, Self.page(parentID, after: after, limit: limit)) { try $0.container(at: 0) }
    }

    /// Up to `limit` files of `containerID`, in the order of ``containers(in:after:limit:)``.
    func files(in containerID: ResourceID, after: String?, limit: Int) throws -> [FileRecord] {
        try readAll(after == nil ? .filesPage : .filesPageAfter, Self.page(containerID, after: after, limit: limit)) { try $0.file(at: 0) }
    }

    /// The arguments of a page query: the parent, the name to start after when given, the limit.
    private static func page(_ parentID: ResourceID, after: String?, limit: Int) -> [String] {
        [parentID.rawValue] + (after.map { [$0] } ?? []) + [String(limit)]
    }

    // MARK: Statements

    /// The statements, each compiled once per connection. Columns come in the order the decoders
    /// below read them.
    enum Query: Int, CaseIterable {
        case fileAccess, containerAccess, user, file, container, containersPage, containersPageAfter, filesPage, filesPageAfter

        var sql: String {
            switch self {
            case .fileAccess:
                // The caller, the file with its folder's name and, for anyone but the owner, the best share on the
                // folder chain and the share on the file itself ('editor' > 'viewer' as text).
                """
                WITH RECURSIVE chain(id) AS (
                    SELECT container_id FROM files WHERE id = ?1
                    UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
                )
                SELECT \(SQLiteLookups.userColumns.list("u")), \(SQLiteLookups.fileColumns.list("f")), c.name,
                       CASE WHEN f.owner_id = u.id THEN NULL ELSE
                           (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END,
                       CASE WHEN f.owner_id = u.id THEN NULL ELSE
                           (SELECT max(s.role) FROM shares s WHERE s.file_id = f.id AND s.user_id = u.id) END
                FROM users u LEFT JOIN files f ON f.id = ?1 AND f.trash_id IS NULL LEFT JOIN containers c ON c.id = f.container_id
                WHERE u.id = ?2
                """
            case .containerAccess:
                """
                WITH RECURSIVE chain(id) AS (
                    SELECT id FROM containers WHERE id = ?1
                    UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
                )
                SELECT \(SQLiteLookups.userColumns.list("u")), \(SQLiteLookups.containerColumns.list("c")),
                       CASE WHEN c.owner_id = u.id THEN NULL ELSE
                           (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END
                FROM users u LEFT JOIN containers c ON c.id = ?1 AND c.trash_id IS NULL
                WHERE u.id = ?2
                """
            case .user:
                "SELECT \(SQLiteLookups.userColumns.list("u")) FROM users u WHERE u.id = ?1"
            case .file:
                "SELECT \(SQLiteLookups.fileColumns.list("f")) FROM files f WHERE f.id = ?1 AND f.trash_id IS NULL"
            case .container:
                "SELECT \(SQLiteLookups.containerColumns.list("c")) FROM containers c WHERE c.id = ?1 AND c.trash_id IS NULL"
            case .containersPage: Self.page(SQLiteLookups.containerColumns, of: "containers", under: "parent_id", after: false)
            case .containersPageAfter: Self.page(SQLiteLookups.containerColumns, of: "containers", under: "parent_id", after: true)
            case .filesPage: Self.page(SQLiteLookups.fileColumns, of: "files", under: "container_id", after: false)
            case .filesPageAfter: Self.page(SQLiteLookups.fileColumns, of: "files", under: "container_id", after: true)
            }
        }

        /// Rows of `table` under `parent` (?1) by name, after a name (?2) when `after`; the limit comes last, bound
        /// as text as every argument is.
        private static func page(_ columns: Columns, of table: String, under parent: String, after: Bool) -> String {
            """
            SELECT \(columns.list("t")) FROM \(table) t WHERE t.\(parent) = ?1\(after ? " AND t.name > ?2 COLLATE NOCASE" : "")
            ORDER BY t.name COLLATE NOCASE LIMIT CAST(?\(after ? 3 : 2) AS INTEGER)
            """
        }
    }

    /// A table's columns in the order a decoder below reads them: the shared column lists.
    struct Columns {
        let names: String
        /// Counted once: the per-request reads find their columns by it.
        let count: Int32
        init(_ names: String) {
            self.names = names
            count = Int32(names.split(separator: ", ").count)
        }
        func list(_ table: String) -> String { SQLiteStore.qualified(names, by: table) }
    }

    static let userColumns = Columns(SQLiteStore.userColumns)
    static let fileColumns = Columns(SQLiteStore.fileColumns)
    static let containerColumns = Columns(SQLiteStore.containerColumns)

    // MARK: Running a statement

    /// Binds `arguments` to `query`, decodes its first row if there is one, and resets the statement
    /// (which ends its read transaction) whatever happens.
    private func read<Record>(_ query: Query, _ arguments: String..., decode: (ResultRow) throws -> Record) throws -> Record? {
        try run(query, arguments, rows: 1, decode: decode).first
    }

    /// Every row of `query`, decoded, as ``read(_:_:decode:)`` reads one.
    private func readAll<Record>(_ query: Query, _ arguments: [String], decode: (ResultRow) throws -> Record) throws -> [Record] {
        try run(query, arguments, rows: .max, decode: decode)
    }

    private func run<Record>(_ query: Query, _ arguments: [String], rows limit: Int, decode: (ResultRow) throws -> Record) throws -> [Record] {
        do {
            return try withConnection { connection in
                let statement = try connection.statement(query)
                defer {
                    sqlite3_reset(statement)
                    sqlite3_clear_bindings(statement)
                }
                // Bound without a copy (SQLITE_STATIC): the texts outlive the steps, which run inside `bind`.
                return try Self.bind(arguments[...], to: statement, at: 1, connection, query) {
                    var records: [Record] = []
                    while records.count < limit {
                        switch sqlite3_step(statement) {
                        case SQLITE_ROW: records.append(try decode(ResultRow(statement: statement)))
                        case SQLITE_DONE: return records
                        case let code: throw connection.error(code, query)
                        }
                    }
                    return records
                }
            }
        } catch {
            throw StoreDatabasePool.mapped(error)
        }
    }

    private static func bind<Result>(_ arguments: ArraySlice<String>, to statement: OpaquePointer, at index: Int32, _ connection: Connection,
                                      _ query: Query, then body: () throws -> Result) throws -> Result {
        guard let argument = arguments.first else { return try body() }
        return try argument.withCString { text in
            let code = sqlite3_bind_text(statement, index, text, -1, nil)
            guard code == SQLITE_OK else { throw connection.error(code, query) }
            return try bind(arguments.dropFirst(), to: statement, at: index + 1, connection, query, then: body)
        }
    }

    /// The first free slot from `home` on, locked; when every slot is busy, `home`'s once it is free.
    private func slotLocked(from home: Int) -> Slot {
        for offset in 0..<slots.count {
            let slot = slots[(home + offset) % slots.count]
            if slot.lock.try() { return slot }
        }
        slots[home].lock.lock()
        return slots[home]
    }

    private func withConnection<Result>(_ body: (Connection) throws -> Result) throws -> Result {
        #if canImport(Darwin)
        let thread = UInt(bitPattern: pthread_self())
        #else
        let thread = UInt(pthread_self())
        #endif
        // Thread ids are addresses of page-aligned thread structures: drop the always-equal low bits.
        let home = Int((thread >> 12) % UInt(slots.count))
        let slot = slotLocked(from: home)
        defer { slot.lock.unlock() }
        if slot.connection == nil { slot.connection = try Connection(path: path) }
        do {
            return try body(slot.connection!)
        } catch let error as DatabaseError where StoreDatabasePool.unavailability(error) != nil && !StoreDatabasePool.isLocked(error) {
            // A damaged or unreadable file: open afresh next time, so a repaired file is read anew, not from this connection's cache.
            slot.connection?.close()
            slot.connection = nil
            throw error
        }
    }

    /// One SQLite connection, used by one read at a time, with its compiled statements.
    private final class Connection {
        let handle: OpaquePointer
        private var statements: [OpaquePointer?]

        init(path: String) throws {
            var handle: OpaquePointer?
            // NOMUTEX: its slot's lock hands a connection to one thread at a time.
            let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
            guard code == SQLITE_OK, let handle else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
                sqlite3_close_v2(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
            }
            self.handle = handle
            statements = Array(repeating: nil, count: Query.allCases.count)
            // Reads only; waits out a writer's checkpoint like the pool's connections do.
            sqlite3_busy_timeout(handle, Int32(SQLiteStore.busyTimeout * 1000))
            sqlite3_exec(handle, "PRAGMA query_only = 1", nil, nil, nil)
        }

        func statement(_ query: Query) throws -> OpaquePointer {
            if let statement = statements[query.rawValue] { return statement }
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v3(handle, query.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            guard code == SQLITE_OK, let statement else { throw error(code, query) }
            statements[query.rawValue] = statement
            return statement
        }

        func error(_ code: Int32, _ query: Query) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: query.sql)
        }

        func close() {
            for statement in statements { sqlite3_finalize(statement) }
            sqlite3_close_v2(handle)
        }
    }

    /// The current row of a stepped statement, read by column position. A value of the wrong kind is
    /// damage (a hand-edited database), reported as `StoredValueError` as the shared decoders report it.
    struct ResultRow {
        let statement: OpaquePointer

        func isNull(_ column: Int32) -> Bool {
            sqlite3_column_type(statement, column) == SQLITE_NULL
        }

        func text(_ column: Int32) throws -> String {
            guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(statement, column) else {
                throw damage(column)
            }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
        }

        func optionalText(_ column: Int32) throws -> String? {
            isNull(column) ? nil : try text(column)
        }

        func integer(_ column: Int32) throws -> Int64 {
            guard sqlite3_column_type(statement, column) == SQLITE_INTEGER else { throw damage(column) }
            return sqlite3_column_int64(statement, column)
        }

        /// A time; SQLite hands back a `REAL` that holds a whole number as an integer.
        func date(_ column: Int32) throws -> Date {
            let type = sqlite3_column_type(statement, column)
            guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else { throw damage(column) }
            return Date(timeIntervalSince1970: sqlite3_column_double(statement, column))
        }

        func id(_ column: Int32) throws -> ResourceID {
            try .stored(text(column), column: name(column))
        }

        func user(at start: Int32) throws -> UserRecord {
            UserRecord(id: try id(start), name: try text(start + 1), displayName: try text(start + 2),
                       passwordHash: PasswordHash(stored: try text(start + 3)), rootContainerID: try id(start + 4),
                       userInfo: try optionalText(start + 5))
        }

        func file(at start: Int32) throws -> FileRecord {
            let expiry = isNull(start + 10) ? nil : try date(start + 10)
            let lock = try optionalText(start + 9).flatMap(WOPILock.init).flatMap { lock in expiry.map { LockState(lock: lock, expiresAt: $0) } }
            return FileRecord(id: try id(start), containerID: try id(start + 1), ownerID: try id(start + 2), name: try text(start + 3),
                              size: try integer(start + 4), version: try integer(start + 5), sha256: try text(start + 6),
                              blobKey: try .stored(text(start + 7), column: "files.blob_key"), modifiedAt: try date(start + 8), lock: lock)
        }

        func container(at start: Int32) throws -> ContainerRecord {
            ContainerRecord(id: try id(start), parentID: try optionalText(start + 1).storedID(column: "containers.parent_id"), ownerID: try id(start + 2),
                            name: try text(start + 3))
        }

        private func name(_ column: Int32) -> String {
            sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "column \(column + 1)"
        }

        private func damage(_ column: Int32) -> StoredValueError {
            let value = isNull(column) ? "NULL" : sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
            return StoredValueError(column: name(column), value: value)
        }
    }
}
