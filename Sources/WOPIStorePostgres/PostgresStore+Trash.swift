import Foundation
import WOPIHost
import PostgresNIO
import WOPICore

/// The trash on PostgreSQL, as `SQLiteStore`'s: a trashed item moves into a hidden holder container of
/// its own and carries its id in `trash_id` with everything under it. Each step is one transaction that
/// first locks the item's row, so a trash racing a restore or a save on another host serializes.
extension PostgresStore {
    /// Moves a file to its owner's trash unless someone else holds its lock (`WOPIStoreError.lockConflict(currentLock:reason:)`).
    /// Its name is free in the folder at once; its body stays until the trash is emptied.
    public func trashFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> TrashedItem {
        try await transaction { connection in
            guard let file = try await self.lockedFile(connection, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            let holder = try await self.insertHolder(connection, for: id, owner: file.ownerID)
            try await connection.query("UPDATE files SET container_id = \(holder), trash_id = \(id.rawValue) WHERE id = \(id.rawValue)",
                                       logger: self.logger)
            let item = TrashedItem(id: id, kind: .file, ownerID: file.ownerID, name: file.name, originalFolderID: file.containerID,
                                   trashedAt: now, size: file.size)
            try await self.insertTrashRow(connection, item, holder: holder)
            return item
        }
    }

    /// Moves a folder with everything under it to its owner's trash, as one item.
    public func trashContainer(_ id: ResourceID, onlyIfEmpty: Bool, now: Date) async throws -> TrashedItem {
        try await transaction { connection in
            guard let container = try await Self.first(connection, """
                SELECT \(unescaped: Columns.container) FROM containers WHERE id = \(id.rawValue) AND trash_id IS NULL FOR UPDATE
                """, logger: self.logger, Self.container) else { throw WOPIStoreError.notFound }
            guard let parentID = container.parentID else { throw WOPIStoreError.notAllowed("a user's root folder cannot be deleted") }
            if onlyIfEmpty {
                let hasChildren = try await Self.first(connection, """
                    SELECT EXISTS (SELECT 1 FROM containers WHERE parent_id = \(id.rawValue)) OR EXISTS (SELECT 1 FROM files WHERE container_id = \(id.rawValue))
                    """, logger: self.logger) { try $0.decode(Bool.self) } ?? true
                if hasChildren { throw WOPIStoreError.notEmpty }
            }
            let tree = "WITH RECURSIVE tree(id) AS (SELECT $1::text UNION SELECT c.id FROM containers c JOIN tree ON c.parent_id = tree.id)"
            var bindings = PostgresBindings()
            bindings.append(id.rawValue)
            bindings.append(now.timeIntervalSince1970)
            if let (name, lock) = try await Self.first(connection, PostgresQuery(unsafeSQL: """
                \(tree) SELECT name, lock_value FROM files WHERE container_id IN (SELECT id FROM tree)
                AND lock_value IS NOT NULL AND lock_expires_at > $2 LIMIT 1 FOR UPDATE
                """, binds: bindings), logger: self.logger, { try $0.decode((String, String).self) }) {
                throw WOPIStoreError.lockConflict(currentLock: lock, reason: "'\(name)' in the folder is locked")
            }
            let holder = try await self.insertHolder(connection, for: id, owner: container.ownerID)
            var idOnly = PostgresBindings()
            idOnly.append(id.rawValue)
            try await connection.query(PostgresQuery(unsafeSQL: "\(tree) UPDATE files SET trash_id = $1 WHERE container_id IN (SELECT id FROM tree)",
                                                     binds: idOnly), logger: self.logger)
            try await connection.query(PostgresQuery(unsafeSQL: "\(tree) UPDATE containers SET trash_id = $1 WHERE id IN (SELECT id FROM tree)",
                                                     binds: idOnly), logger: self.logger)
            try await connection.query("UPDATE containers SET parent_id = \(holder) WHERE id = \(id.rawValue)", logger: self.logger)
            let size = try await Self.first(connection, "SELECT coalesce(sum(size), 0)::bigint FROM files WHERE trash_id = \(id.rawValue)",
                                            logger: self.logger) { try $0.decode(Int64.self) } ?? 0
            let item = TrashedItem(id: id, kind: .container, ownerID: container.ownerID, name: container.name, originalFolderID: parentID,
                                   trashedAt: now, size: size)
            try await self.insertTrashRow(connection, item, holder: holder)
            return item
        }
    }

    /// The items in `ownerID`'s trash (everyone's when `nil`), newest first, then by id.
    public func trashedItems(ownedBy ownerID: ResourceID?) async throws -> [TrashedItem] {
        try await transaction { connection in
            try await self.trashRows(connection, owner: ownerID, before: nil, item: nil, lock: false).map(\.item)
        }
    }

    /// Brings an item back from the trash with its id, content, versions and shares, in one atomic step.
    public func restoreFromTrash(_ id: ResourceID, as name: String?) async throws -> TrashRestore {
        try await transaction { connection in
            guard let (item, holder) = try await self.trashRows(connection, owner: nil, before: nil, item: id, lock: true).first else {
                throw WOPIStoreError.notFound
            }
            guard let root = try await Self.first(connection, "SELECT root_container_id FROM users WHERE id = \(item.ownerID.rawValue)",
                                                  logger: self.logger, { try $0.decode(String.self) }).storedID(column: "users.root_container_id") else {
                throw WOPIStoreError.notFound
            }
            let original = try await Self.first(connection, """
                SELECT owner_id FROM containers WHERE id = \(item.originalFolderID.rawValue) AND trash_id IS NULL FOR SHARE
                """, logger: self.logger) { try $0.decode(String.self) }
            let destination = TrashRules.destination(originalFolder: item.originalFolderID, originalFolderIsLive: original == item.ownerID.rawValue,
                                                     ownerRoot: root)
            let restoredName = name ?? item.name
            let folder = destination.folderID.rawValue
            let taken: Bool
            switch item.kind {
            case .file:
                taken = try await Self.first(connection, """
                    SELECT 1 FROM files WHERE container_id = \(folder) AND wopi_fold(name) = wopi_fold(\(restoredName))
                    """, logger: self.logger) { try $0.decode(Int.self) } != nil
                if taken { throw WOPIStoreError.nameTaken(restoredName) }
                try await Self.takingName(restoredName) {
                    try await connection.query("UPDATE files SET container_id = \(folder), name = \(restoredName) WHERE id = \(id.rawValue)",
                                               logger: self.logger)
                }
            case .container:
                taken = try await Self.first(connection, """
                    SELECT 1 FROM containers WHERE parent_id = \(folder) AND wopi_fold(name) = wopi_fold(\(restoredName))
                    """, logger: self.logger) { try $0.decode(Int.self) } != nil
                if taken { throw WOPIStoreError.nameTaken(restoredName) }
                try await Self.takingName(restoredName) {
                    try await connection.query("UPDATE containers SET parent_id = \(folder), name = \(restoredName) WHERE id = \(id.rawValue)",
                                               logger: self.logger)
                }
            }
            try await connection.query("DELETE FROM containers WHERE id = \(holder)", logger: self.logger)
            try await connection.query("UPDATE files SET trash_id = NULL WHERE trash_id = \(id.rawValue)", logger: self.logger)
            try await connection.query("UPDATE containers SET trash_id = NULL WHERE trash_id = \(id.rawValue)", logger: self.logger)
            try await connection.query("DELETE FROM trash_items WHERE item_id = \(id.rawValue)", logger: self.logger)
            return TrashRestore(item: item, destination: destination, name: restoredName)
        }
    }

    /// Removes for good the trashed items of `ownerID` (everyone's when `nil`) trashed before `trashedBefore`
    /// (all when `nil`), with everything under them; returns them and the bodies to delete.
    public func emptyTrash(ownedBy ownerID: ResourceID?, trashedBefore: Date?) async throws -> TrashPurge {
        try await transaction { connection in
            let items = try await self.trashRows(connection, owner: ownerID, before: trashedBefore, item: nil, lock: true).map(\.item)
            var candidates: Set<String> = []
            for item in items {
                let kept = try await Self.all(connection, """
                    SELECT v.blob_key FROM file_versions v JOIN files f ON f.id = v.file_id WHERE f.trash_id = \(item.id.rawValue)
                    """, logger: self.logger) { try $0.decode(String.self) }
                // Versions, shares and activities go with their rows; foreign keys are checked at the end of each statement.
                let current = try await Self.all(connection, "DELETE FROM files WHERE trash_id = \(item.id.rawValue) RETURNING blob_key",
                                                 logger: self.logger) { try $0.decode(String.self) }
                candidates.formUnion(kept + current)
                try await connection.query("DELETE FROM containers WHERE trash_id = \(item.id.rawValue)", logger: self.logger)
                try await connection.query("DELETE FROM trash_items WHERE item_id = \(item.id.rawValue)", logger: self.logger)
            }
            var orphans: [BlobKey] = []
            for candidate in candidates.sorted() {
                let used = try await Self.first(connection, """
                    SELECT EXISTS (SELECT 1 FROM files WHERE blob_key = \(candidate)) OR EXISTS (SELECT 1 FROM file_versions WHERE blob_key = \(candidate))
                    """, logger: self.logger) { try $0.decode(Bool.self) } ?? true
                if !used, let key = BlobKey(candidate) { orphans.append(key) }
            }
            return TrashPurge(removed: items, blobs: orphans)
        }
    }

    /// Runs `move`, reporting a sibling that took `name` since the check (a concurrent writer) as `WOPIStoreError/nameTaken(_:)`.
    private static func takingName(_ name: String, _ move: () async throws -> Void) async throws {
        do { try await move() } catch let error as PSQLError where error.isUniqueViolation { throw WOPIStoreError.nameTaken(name) }
    }

    /// A hidden, parentless container that holds one trashed item, so the item's name is free where it was.
    private func insertHolder(_ connection: PostgresConnection, for item: ResourceID, owner: ResourceID) async throws -> String {
        let holder = ResourceID.random().rawValue
        try await connection.query("""
            INSERT INTO containers (id, parent_id, owner_id, name, trash_id) VALUES (\(holder), NULL, \(owner.rawValue), 'Trash', \(item.rawValue))
            """, logger: logger)
        return holder
    }

    private func insertTrashRow(_ connection: PostgresConnection, _ item: TrashedItem, holder: String) async throws {
        try await connection.query("""
            INSERT INTO trash_items (item_id, kind, owner_id, holder_id, original_parent_id, trashed_at)
            VALUES (\(item.id.rawValue), \(item.kind.rawValue), \(item.ownerID.rawValue), \(holder), \(item.originalFolderID.rawValue),
                    \(item.trashedAt.timeIntervalSince1970))
            """, logger: logger)
    }

    /// Trashed items with their holders, filtered by owner, age or id, newest first; `lock` takes their rows' locks.
    private func trashRows(_ connection: PostgresConnection, owner: ResourceID?, before: Date?, item: ResourceID?,
                           lock: Bool) async throws -> [(item: TrashedItem, holder: String)] {
        try await Self.all(connection, """
            SELECT t.item_id, t.kind, t.owner_id, t.holder_id, t.original_parent_id, t.trashed_at,
                   coalesce(f.name, c.name, ''),
                   (SELECT coalesce(sum(size), 0)::bigint FROM files WHERE trash_id = t.item_id)
            FROM trash_items t
            LEFT JOIN files f ON t.kind = 'file' AND f.id = t.item_id
            LEFT JOIN containers c ON t.kind = 'container' AND c.id = t.item_id
            WHERE (\(owner?.rawValue)::text IS NULL OR t.owner_id = \(owner?.rawValue))
              AND (\(before?.timeIntervalSince1970)::double precision IS NULL OR t.trashed_at < \(before?.timeIntervalSince1970))
              AND (\(item?.rawValue)::text IS NULL OR t.item_id = \(item?.rawValue))
            ORDER BY t.trashed_at DESC, t.item_id
            \(unescaped: lock ? "FOR UPDATE OF t" : "")
            """, logger: logger) { row in
            let (itemID, kind, ownerID, holder, original, trashedAt, name, size) = try row.decode(
                (String, String, String, String, String, Double, String, Int64).self)
            return (TrashedItem(id: try Self.id(itemID), kind: try .stored(kind, column: "trash_items.kind"), ownerID: try Self.id(ownerID), name: name,
                                originalFolderID: try Self.id(original), trashedAt: Date(timeIntervalSince1970: trashedAt), size: size), holder)
        }
    }
}
