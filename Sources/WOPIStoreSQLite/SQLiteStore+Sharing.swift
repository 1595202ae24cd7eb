import Foundation
import WOPIHost
import GRDB
import WOPICore

/// Sharing on SQLite. Roles are read fresh on every call: a removed share stops working at once.
extension SQLiteStore {
    /// Shares a file or container (and everything under it) with a user as `AccessRole.viewer` or
    /// `AccessRole.editor`; sharing it again with the same user replaces the role, in one atomic step.
    public func share(_ itemID: ResourceID, kind: ShareRecord.ItemKind, with userID: ResourceID, role: AccessRole, now: Date) async throws
        -> ShareRecord {
        guard role != .owner else { throw WOPIStoreError.notAllowed("a share gives the viewer or editor role, not owner") }
        return try await pool.write { db in
            let owner: String? = switch kind {
            case .file: try String.fetchOne(db, sql: "SELECT owner_id FROM files WHERE id = ? AND trash_id IS NULL", arguments: [itemID.rawValue])
            case .container: try String.fetchOne(db, sql: "SELECT owner_id FROM containers WHERE id = ? AND trash_id IS NULL", arguments: [itemID.rawValue])
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

    /// Removes the share of an item with a user; `false` when there was none. Takes effect on the
    /// user's next request: nothing about a share is cached or carried in a token.
    public func removeShare(of itemID: ResourceID, with userID: ResourceID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM shares WHERE (file_id = ? OR container_id = ?) AND user_id = ?",
                           arguments: [itemID.rawValue, itemID.rawValue, userID.rawValue])
            return db.changesCount > 0
        }
    }

    /// The shares made with `userID` (every share when `nil`), oldest first: by time, then item id, then user id.
    public func shares(with userID: ResourceID?) async throws -> [ShareRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM shares WHERE (?1 IS NULL OR user_id = ?1)
                AND NOT EXISTS (SELECT 1 FROM files f WHERE f.id = shares.file_id AND f.trash_id IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM containers c WHERE c.id = shares.container_id AND c.trash_id IS NOT NULL)
                ORDER BY shared_at, coalesce(file_id, container_id), user_id
                """, arguments: [userID?.rawValue]).map(Self.share)
        }
    }

    /// The shares of one item, by time, then user id.
    public func shares(of itemID: ResourceID) async throws -> [ShareRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM shares WHERE file_id = ?1 OR container_id = ?1 ORDER BY shared_at, user_id",
                             arguments: [itemID.rawValue]).map(Self.share)
        }
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

    private static func share(_ row: Row) throws -> ShareRecord {
        let fileID: String? = row["file_id"]
        let containerID: String? = row["container_id"]
        return ShareRecord(itemID: try .stored(fileID ?? containerID ?? "", column: "shares.file_id"), itemKind: fileID != nil ? .file : .container,
                           userID: try id(row, "user_id"), role: try .stored(row["role"], column: "shares.role"),
                           sharedAt: Date(timeIntervalSince1970: row["shared_at"]))
    }
}
