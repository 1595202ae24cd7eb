import Foundation
import GRDB
import WOPICore

/// Sharing on SQLite (issue 13). Roles are read fresh on every call: a removed share stops working at once.
extension SQLiteStore {
    public func share(_ itemID: ResourceID, kind: ShareRecord.ItemKind, with userID: ResourceID, role: AccessRole, now: Date) async throws
        -> ShareRecord {
        guard role != .owner else { throw WOPIStoreError.notAllowed("a share gives the viewer or editor role, not owner") }
        return try await pool.write { db in
            let owner: String? = switch kind {
            case .file: try String.fetchOne(db, sql: "SELECT owner_id FROM files WHERE id = ?", arguments: [itemID.rawValue])
            case .container: try String.fetchOne(db, sql: "SELECT owner_id FROM containers WHERE id = ?", arguments: [itemID.rawValue])
            }
            guard let owner, try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [userID.rawValue]) != nil else {
                throw WOPIStoreError.notFound
            }
            guard owner != userID.rawValue else { throw WOPIStoreError.notAllowed("the user owns this item") }
            let column = kind == .file ? "file_id" : "container_id"
            try db.execute(sql: """
                INSERT INTO shares (\(column), user_id, role, shared_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (\(column), user_id) WHERE \(column) IS NOT NULL DO UPDATE SET role = excluded.role, shared_at = excluded.shared_at
                """, arguments: [itemID.rawValue, userID.rawValue, role.rawValue, now.timeIntervalSince1970])
            return ShareRecord(itemID: itemID, itemKind: kind, userID: userID, role: role, sharedAt: now)
        }
    }

    public func removeShare(of itemID: ResourceID, with userID: ResourceID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM shares WHERE (file_id = ? OR container_id = ?) AND user_id = ?",
                           arguments: [itemID.rawValue, itemID.rawValue, userID.rawValue])
            return db.changesCount > 0
        }
    }

    public func shares(with userID: ResourceID?) async throws -> [ShareRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM shares WHERE ?1 IS NULL OR user_id = ?1
                ORDER BY shared_at, coalesce(file_id, container_id), user_id
                """, arguments: [userID?.rawValue]).map(Self.share)
        }
    }

    public func shares(of itemID: ResourceID) async throws -> [ShareRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM shares WHERE file_id = ?1 OR container_id = ?1 ORDER BY shared_at, user_id",
                             arguments: [itemID.rawValue]).map(Self.share)
        }
    }

    public func fileAccess(_ fileID: ResourceID, by userID: ResourceID) async throws -> FileAccess? {
        // One statement, run inline (issue 10): the user, the file with its folder's name, and for anyone but the
        // owner the best share on the folder chain and the share on the file itself ('editor' > 'viewer' as text).
        try lookUp { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                WITH RECURSIVE chain(id) AS (
                    SELECT container_id FROM files WHERE id = ?1
                    UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
                )
                SELECT \(Self.prefixedUserColumns), f.*, c.name AS container_name,
                       CASE WHEN f.owner_id = u.id THEN NULL ELSE
                           (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END AS chain_role,
                       CASE WHEN f.owner_id = u.id THEN NULL ELSE
                           (SELECT max(s.role) FROM shares s WHERE s.file_id = f.id AND s.user_id = u.id) END AS file_role
                FROM users u LEFT JOIN files f ON f.id = ?1 LEFT JOIN containers c ON c.id = f.container_id
                WHERE u.id = ?2
                """), arguments: [fileID.rawValue, userID.rawValue])
            else { return nil }
            let user = Self.user(row, prefix: "u_")
            guard (row["id"] as String?) != nil else { return FileAccess(user: user, file: nil, role: nil, containerRole: nil, containerName: "") }
            return FileAccess(user: user, file: Self.file(row), containerName: row["container_name"],
                              folderShare: (row["chain_role"] as String?).flatMap(AccessRole.init(rawValue:)),
                              fileShare: (row["file_role"] as String?).flatMap(AccessRole.init(rawValue:)))
        }
    }

    public func containerAccess(_ containerID: ResourceID, by userID: ResourceID) async throws -> ContainerAccess? {
        try lookUp { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                WITH RECURSIVE chain(id) AS (
                    SELECT id FROM containers WHERE id = ?1
                    UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
                )
                SELECT \(Self.prefixedUserColumns), c.*,
                       CASE WHEN c.owner_id = u.id THEN NULL ELSE
                           (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END AS shared_role
                FROM users u LEFT JOIN containers c ON c.id = ?1
                WHERE u.id = ?2
                """), arguments: [containerID.rawValue, userID.rawValue])
            else { return nil }
            let user = Self.user(row, prefix: "u_")
            guard (row["id"] as String?) != nil else { return ContainerAccess(user: user, container: nil, role: nil) }
            return ContainerAccess(user: user, container: Self.container(row),
                                   sharedRole: (row["shared_role"] as String?).flatMap(AccessRole.init(rawValue:)))
        }
    }

    /// The user's columns under `u_` names (read with `user(_:prefix:)`), so they can share a row with a file's or container's.
    private static let prefixedUserColumns = """
        u.id AS u_id, u.name AS u_name, u.display_name AS u_display_name, u.password_hash AS u_password_hash, \
        u.root_container_id AS u_root_container_id, u.user_info AS u_user_info
        """

    private static func share(_ row: Row) -> ShareRecord {
        let fileID: String? = row["file_id"]
        let containerID: String? = row["container_id"]
        return ShareRecord(itemID: ResourceID(fileID ?? containerID ?? "") ?? ResourceID("invalid")!, itemKind: fileID != nil ? .file : .container,
                           userID: id(row, "user_id"), role: AccessRole(rawValue: row["role"]) ?? .viewer,
                           sharedAt: Date(timeIntervalSince1970: row["shared_at"]))
    }
}
