import Foundation
import WOPICore
import WOPIHost

/// Sharing (table `shares`). Roles are read fresh on every call: a removed share stops working at once.
extension SQLStore {
    /// Shares a file or container (and everything under it) with a user as `AccessRole.viewer` or
    /// `AccessRole.editor`; sharing it again with the same user replaces the role, in one atomic step.
    public func share(_ itemID: ResourceID, kind: ShareRecord.ItemKind, with userID: ResourceID, role: AccessRole, now: Date) async throws
        -> ShareRecord {
        guard role != .owner else { throw WOPIStoreError.notAllowed("a share gives the viewer or editor role, not owner") }
        let (table, column) = kind == .file ? ("files", "file_id") : ("containers", "container_id")
        return try await transaction { session in
            guard let owner = try await session.first("""
                SELECT owner_id FROM \(unescaped: table) WHERE id = \(itemID) AND trash_id IS NULL\(unescaped: dialect.forShare)
                """)?.text(0),
                  try await session.first("SELECT 1 FROM users WHERE id = \(userID)\(unescaped: dialect.forShare)") != nil
            else { throw WOPIStoreError.notFound }
            guard owner != userID.rawValue else { throw WOPIStoreError.notAllowed("the user owns this item") }
            try await session.execute("""
                INSERT INTO shares (\(unescaped: column), user_id, role, shared_at) VALUES (\(itemID), \(userID), \(role.rawValue), \(now))
                ON CONFLICT (\(unescaped: column), user_id) WHERE \(unescaped: column) IS NOT NULL
                DO UPDATE SET role = excluded.role, shared_at = excluded.shared_at
                """)
            return ShareRecord(itemID: itemID, itemKind: kind, userID: userID, role: role, sharedAt: now)
        }
    }

    /// Removes the share of an item with a user; `false` when there was none. Takes effect on the
    /// user's next request: nothing about a share is cached or carried in a token.
    public func removeShare(of itemID: ResourceID, with userID: ResourceID) async throws -> Bool {
        try await !write("""
            DELETE FROM shares WHERE (file_id = \(itemID) OR container_id = \(itemID)) AND user_id = \(userID) RETURNING user_id
            """).isEmpty
    }

    /// The shares made with `userID` (every share when `nil`), oldest first: by time, then item id, then user id.
    public func shares(with userID: ResourceID?) async throws -> [ShareRecord] {
        try await rows("""
            SELECT file_id, container_id, user_id, role, shared_at FROM shares WHERE (CAST(\(userID) AS TEXT) IS NULL OR user_id = \(userID))
            AND NOT EXISTS (SELECT 1 FROM files f WHERE f.id = shares.file_id AND f.trash_id IS NOT NULL)
            AND NOT EXISTS (SELECT 1 FROM containers c WHERE c.id = shares.container_id AND c.trash_id IS NOT NULL)
            ORDER BY shared_at, coalesce(file_id, container_id), user_id
            """).map(Self.share)
    }

    /// The shares of one item, by time, then user id.
    public func shares(of itemID: ResourceID) async throws -> [ShareRecord] {
        try await rows("""
            SELECT file_id, container_id, user_id, role, shared_at FROM shares WHERE file_id = \(itemID) OR container_id = \(itemID)
            ORDER BY shared_at, user_id
            """).map(Self.share)
    }

    /// The caller, the container and the caller's role on it (the rule of `fileAccess(_:by:)`) — in one step.
    /// `nil` when the user does not exist.
    public func containerAccess(_ containerID: ResourceID, by userID: ResourceID) async throws -> ContainerAccess? {
        try await first("""
            WITH RECURSIVE chain(id) AS (
                SELECT id FROM containers WHERE id = \(containerID)
                UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
            )
            SELECT \(unescaped: Self.qualified(Self.userColumns, by: "u")), \(unescaped: Self.qualified(Self.containerColumns, by: "c")),
                   (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id)
            FROM users u LEFT JOIN containers c ON c.id = \(containerID) AND c.trash_id IS NULL
            WHERE u.id = \(userID)
            """).map { row in
            let user = try Self.user(row)
            guard try row.optionalText(6) != nil else { return ContainerAccess(user: user, container: nil, role: nil) }
            return ContainerAccess(user: user, container: try Self.container(row, from: 6),
                                   sharedRole: try row.optionalText(10).flatMap(AccessRole.init(rawValue:)))
        }
    }

    private static func share(_ row: SQLRow) throws -> ShareRecord {
        let fileID = try row.optionalID(0, column: "shares.file_id")
        guard let itemID = try fileID ?? row.optionalID(1, column: "shares.container_id") else {
            throw StoredValueError(column: "shares.container_id", value: "NULL")
        }
        return ShareRecord(itemID: itemID, itemKind: fileID != nil ? .file : .container, userID: try row.id(2, column: "shares.user_id"),
                           role: try .stored(row.text(3), column: "shares.role"), sharedAt: try row.date(4))
    }
}
