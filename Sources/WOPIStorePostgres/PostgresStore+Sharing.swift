import Foundation
import WOPIHost
import PostgresNIO
import WOPICore

/// Sharing on PostgreSQL. Each access read is one query: the user, the item and the roles together.
extension PostgresStore {
    /// Shares a file or container (and everything under it) with a user as `AccessRole.viewer` or
    /// `AccessRole.editor`; sharing it again with the same user replaces the role, in one atomic step.
    public func share(_ itemID: ResourceID, kind: ShareRecord.ItemKind, with userID: ResourceID, role: AccessRole, now: Date) async throws
        -> ShareRecord {
        guard role != .owner else { throw WOPIStoreError.notAllowed("a share gives the viewer or editor role, not owner") }
        return try await transaction { connection in
            let ownerQuery: PostgresQuery = switch kind {
            case .file: "SELECT owner_id FROM files WHERE id = \(itemID.rawValue) AND trash_id IS NULL FOR SHARE"
            case .container: "SELECT owner_id FROM containers WHERE id = \(itemID.rawValue) AND trash_id IS NULL FOR SHARE"
            }
            guard let owner = try await Self.first(connection, ownerQuery, logger: self.logger, { try $0.decode(String.self) }),
                  try await Self.first(connection, "SELECT id FROM users WHERE id = \(userID.rawValue) FOR SHARE", logger: self.logger, {
                      try $0.decode(String.self)
                  }) != nil
            else { throw WOPIStoreError.notFound }
            guard owner != userID.rawValue else { throw WOPIStoreError.notAllowed("the user owns this item") }
            let time = now.timeIntervalSince1970
            switch kind {
            case .file:
                try await connection.query("""
                    INSERT INTO shares (file_id, user_id, role, shared_at) VALUES (\(itemID.rawValue), \(userID.rawValue), \(role.rawValue), \(time))
                    ON CONFLICT (file_id, user_id) WHERE file_id IS NOT NULL DO UPDATE SET role = excluded.role, shared_at = excluded.shared_at
                    """, logger: self.logger)
            case .container:
                try await connection.query("""
                    INSERT INTO shares (container_id, user_id, role, shared_at) VALUES (\(itemID.rawValue), \(userID.rawValue), \(role.rawValue), \(time))
                    ON CONFLICT (container_id, user_id) WHERE container_id IS NOT NULL
                    DO UPDATE SET role = excluded.role, shared_at = excluded.shared_at
                    """, logger: self.logger)
            }
            return ShareRecord(itemID: itemID, itemKind: kind, userID: userID, role: role, sharedAt: now)
        }
    }

    /// Removes the share of an item with a user; `false` when there was none. Takes effect on the
    /// user's next request: nothing about a share is cached or carried in a token.
    public func removeShare(of itemID: ResourceID, with userID: ResourceID) async throws -> Bool {
        let removed = try await all("""
            DELETE FROM shares WHERE (file_id = \(itemID.rawValue) OR container_id = \(itemID.rawValue)) AND user_id = \(userID.rawValue)
            RETURNING user_id
            """) { try $0.decode(String.self) }
        return !removed.isEmpty
    }

    /// The shares made with `userID` (every share when `nil`), oldest first: by time, then item id, then user id.
    public func shares(with userID: ResourceID?) async throws -> [ShareRecord] {
        try await all("""
            SELECT file_id, container_id, user_id, role, shared_at FROM shares
            WHERE (\(userID?.rawValue)::text IS NULL OR user_id = \(userID?.rawValue))
            AND NOT EXISTS (SELECT 1 FROM files f WHERE f.id = shares.file_id AND f.trash_id IS NOT NULL)
            AND NOT EXISTS (SELECT 1 FROM containers c WHERE c.id = shares.container_id AND c.trash_id IS NOT NULL)
            ORDER BY shared_at, coalesce(file_id, container_id), user_id
            """, Self.share)
    }

    /// The shares of one item, by time, then user id.
    public func shares(of itemID: ResourceID) async throws -> [ShareRecord] {
        try await all("""
            SELECT file_id, container_id, user_id, role, shared_at FROM shares
            WHERE file_id = \(itemID.rawValue) OR container_id = \(itemID.rawValue)
            ORDER BY shared_at, user_id
            """, Self.share)
    }

    /// The caller, the file, the caller's role on the file and on its folder, and the folder's name — in one step.
    public func fileAccess(_ fileID: ResourceID, by userID: ResourceID) async throws -> FileAccess? {
        // One prepared statement, shared with the calls that arrive at the same time: the user, the file with its folder's
        // name, and for anyone but the owner the best share on the folder chain and the share on the file itself.
        guard let row = try await fileAccesses.run((fileID.rawValue, userID.rawValue)) else { return nil }
        let (uid, name, displayName, hash, root, info, fid, container, owner, fileName, size, version, sha256, blobKey, modified,
             lockValue, lockExpiry, containerName, chainRole, fileRole) = row
        let user = try Self.user((uid, name, displayName, hash, root, info))
        guard let fid, let container, let owner, let fileName, let size, let version, let sha256, let blobKey, let modified else {
            return FileAccess(user: user, file: nil, role: nil, containerRole: nil, containerName: "")
        }
        let file = try Self.file((fid, container, owner, fileName, size, version, sha256, blobKey, modified, lockValue, lockExpiry))
        return FileAccess(user: user, file: file, containerName: containerName ?? "", folderShare: chainRole.flatMap(AccessRole.init(rawValue:)),
                          fileShare: fileRole.flatMap(AccessRole.init(rawValue:)))
    }

    /// The caller, the container and the caller's role on it (the rule of `fileAccess(_:by:)`) — in one step.
    /// `nil` when the user does not exist.
    public func containerAccess(_ containerID: ResourceID, by userID: ResourceID) async throws -> ContainerAccess? {
        try await first("""
            WITH RECURSIVE chain(id) AS (
                SELECT id FROM containers WHERE id = \(containerID.rawValue)
                UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
            )
            SELECT u.id, u.name, u.display_name, u.password_hash, u.root_container_id, u.user_info,
                   c.id, c.parent_id, c.owner_id, c.name,
                   (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id)
            FROM users u LEFT JOIN containers c ON c.id = \(containerID.rawValue) AND c.trash_id IS NULL
            WHERE u.id = \(userID.rawValue)
            """) { row in
            let (uid, name, displayName, hash, root, info, cid, parent, owner, containerName, sharedRole) = try row.decode(
                (String, String, String, String, String, String?, String?, String?, String?, String?, String?).self)
            let user = try Self.user((uid, name, displayName, hash, root, info))
            guard let cid, let owner, let containerName else { return ContainerAccess(user: user, container: nil, role: nil) }
            let container = ContainerRecord(id: try Self.id(cid), parentID: try parent.storedID(column: "containers.parent_id"), ownerID: try Self.id(owner), name: containerName)
            return ContainerAccess(user: user, container: container, sharedRole: sharedRole.flatMap(AccessRole.init(rawValue:)))
        }
    }

    private static func share(_ row: PostgresRow) throws -> ShareRecord {
        let (fileID, containerID, userID, role, sharedAt) = try row.decode((String?, String?, String, String, Double).self)
        return ShareRecord(itemID: try id(fileID ?? containerID ?? ""), itemKind: fileID != nil ? .file : .container, userID: try id(userID),
                           role: try .stored(role, column: "shares.role"), sharedAt: Date(timeIntervalSince1970: sharedAt))
    }
}
