import Foundation
import WOPICore
import WOPIHost

/// The records the rules read, each from one column list: a statement selects the list and the
/// decoder reads the columns in that order.
extension SQLStore {
    public static var containerColumns: String { "id, parent_id, owner_id, name" }

    public static var fileColumns: String {
        "id, container_id, owner_id, name, size, version, sha256, blob_key, modified_at, lock_value, lock_expires_at"
    }

    public static var userColumns: String { "id, name, display_name, password_hash, root_container_id, user_info" }

    public static func user(_ row: SQLRow, from first: Int = 0) throws -> UserRecord {
        UserRecord(id: try row.id(first, column: "users.id"), name: try row.text(first + 1), displayName: try row.text(first + 2),
                   passwordHash: PasswordHash(stored: try row.text(first + 3)), rootContainerID: try row.id(first + 4, column: "users.root_container_id"),
                   userInfo: try row.optionalText(first + 5))
    }

    /// `columns` (one of the lists above), each qualified by `table`, for statements that join.
    public static func qualified(_ columns: String, by table: String) -> String {
        columns.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
    }

    public static func container(_ row: SQLRow, from first: Int = 0) throws -> ContainerRecord {
        ContainerRecord(id: try row.id(first, column: "containers.id"),
                        parentID: try row.optionalText(first + 1).storedID(column: "containers.parent_id"),
                        ownerID: try row.id(first + 2, column: "containers.owner_id"), name: try row.text(first + 3))
    }

    public static func file(_ row: SQLRow, from first: Int = 0) throws -> FileRecord {
        let expiry = try row.optionalDate(first + 10)
        let lock = try row.optionalText(first + 9).flatMap(WOPILock.init).flatMap { lock in expiry.map { LockState(lock: lock, expiresAt: $0) } }
        return FileRecord(id: try row.id(first, column: "files.id"), containerID: try row.id(first + 1, column: "files.container_id"),
                          ownerID: try row.id(first + 2, column: "files.owner_id"), name: try row.text(first + 3),
                          size: try row.integer(first + 4), version: try row.integer(first + 5), sha256: try row.text(first + 6),
                          blobKey: try .stored(row.text(first + 7), column: "files.blob_key"), modifiedAt: try row.date(first + 8), lock: lock)
    }

    /// The live file `id`, its row locked until the transaction ends: the read half of a compare-and-set.
    public func lockedFile(_ session: Session, _ id: ResourceID) async throws -> FileRecord? {
        try await session.first("""
            SELECT \(unescaped: Self.fileColumns) FROM files WHERE id = \(id) AND trash_id IS NULL\(unescaped: dialect.forUpdate())
            """).map { try Self.file($0) }
    }

    /// The bodies among `candidates` no file and no kept version refers to any more, sorted.
    public func unreferenced(_ candidates: Set<String>, _ session: Session) async throws -> [BlobKey] {
        var orphans: [BlobKey] = []
        for candidate in candidates.sorted() {
            let used = try await session.first("""
                SELECT 1 FROM files WHERE blob_key = \(candidate) UNION ALL SELECT 1 FROM file_versions WHERE blob_key = \(candidate) LIMIT 1
                """) != nil
            if !used { orphans.append(try .stored(candidate, column: "blob_key")) }
        }
        return orphans
    }

    /// The live container `id`, read with `lock` (one of the dialect's row locks, or none).
    func liveContainer(_ session: Session, _ id: ResourceID, lock: String) async throws -> ContainerRecord? {
        try await session.first("""
            SELECT \(unescaped: Self.containerColumns) FROM containers WHERE id = \(id) AND trash_id IS NULL\(unescaped: lock)
            """).map { try Self.container($0) }
    }

    /// Whether container `id` holds a folder or a file.
    func hasChildren(_ session: Session, _ id: ResourceID) async throws -> Bool {
        try await session.first("""
            SELECT 1 FROM containers WHERE parent_id = \(id) UNION ALL SELECT 1 FROM files WHERE container_id = \(id) LIMIT 1
            """) != nil
    }

    /// Throws `WOPIStoreError.nameTaken(_:)` when a row of `table` under `parent` other than `except` has `name`.
    func requireFree(_ session: Session, _ name: String, in table: String, under column: String, _ parent: ResourceID,
                     except: ResourceID? = nil) async throws {
        if try await session.first("""
            SELECT 1 FROM \(unescaped: table) WHERE \(unescaped: column) = \(parent) AND \(dialect.sameName("name", name))
            AND (CAST(\(except) AS TEXT) IS NULL OR id <> \(except))
            """) != nil {
            throw WOPIStoreError.nameTaken(name)
        }
    }
}
