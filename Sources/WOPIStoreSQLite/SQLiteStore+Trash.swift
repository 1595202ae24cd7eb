import Foundation
import WOPIHost
import GRDB
import WOPICore

/// The trash on SQLite. A trashed item moves into a holder container of its own (parentless, hidden),
/// and it, the holder and everything under it carry the item's id in `trash_id`, which every lookup of a
/// live item excludes; restoring moves it back and clears the mark, emptying deletes the marked rows.
extension SQLiteStore {
    /// Moves a file to its owner's trash unless someone else holds its lock (`WOPIStoreError.lockConflict(currentLock:reason:)`).
    /// Its name is free in the folder at once; its body stays until the trash is emptied.
    public func trashFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> TrashedItem {
        try await pool.write { db in
            guard let file = try Self.file(db, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            let holder = try Self.insertHolder(db, for: id, owner: file.ownerID)
            try db.execute(sql: "UPDATE files SET container_id = ?, trash_id = ? WHERE id = ?", arguments: [holder, id.rawValue, id.rawValue])
            let item = TrashedItem(id: id, kind: .file, ownerID: file.ownerID, name: file.name, originalFolderID: file.containerID,
                                   trashedAt: now, size: file.size)
            try Self.insertTrashRow(db, item, holder: holder)
            return item
        }
    }

    /// Moves a folder with everything under it to its owner's trash, as one item.
    public func trashContainer(_ id: ResourceID, onlyIfEmpty: Bool, now: Date) async throws -> TrashedItem {
        try await pool.write { db in
            guard let container = try Self.container(db, id) else { throw WOPIStoreError.notFound }
            guard let parentID = container.parentID else { throw WOPIStoreError.notAllowed("a user's root folder cannot be deleted") }
            let tree = """
                WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT c.id FROM containers c JOIN tree ON c.parent_id = tree.id)
                """
            if onlyIfEmpty {
                let hasChildren = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM containers WHERE parent_id = ?1) OR EXISTS (SELECT 1 FROM files WHERE container_id = ?1)
                    """, arguments: [id.rawValue]) ?? true
                if hasChildren { throw WOPIStoreError.notEmpty }
            }
            if let locked = try Row.fetchOne(db, sql: """
                \(tree) SELECT name, lock_value FROM files WHERE container_id IN tree AND lock_value IS NOT NULL AND lock_expires_at > ?2 LIMIT 1
                """, arguments: [id.rawValue, now.timeIntervalSince1970]) {
                let name: String = locked["name"]
                throw WOPIStoreError.lockConflict(currentLock: locked["lock_value"], reason: "'\(name)' in the folder is locked")
            }
            let holder = try Self.insertHolder(db, for: id, owner: container.ownerID)
            try db.execute(sql: "\(tree) UPDATE files SET trash_id = ?1 WHERE container_id IN tree", arguments: [id.rawValue])
            try db.execute(sql: "\(tree) UPDATE containers SET trash_id = ?1 WHERE id IN tree", arguments: [id.rawValue])
            try db.execute(sql: "UPDATE containers SET parent_id = ? WHERE id = ?", arguments: [holder, id.rawValue])
            let size = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(size), 0) FROM files WHERE trash_id = ?", arguments: [id.rawValue]) ?? 0
            let item = TrashedItem(id: id, kind: .container, ownerID: container.ownerID, name: container.name, originalFolderID: parentID,
                                   trashedAt: now, size: size)
            try Self.insertTrashRow(db, item, holder: holder)
            return item
        }
    }

    /// The items in `ownerID`'s trash (everyone's when `nil`), newest first, then by id.
    public func trashedItems(ownedBy ownerID: ResourceID?) async throws -> [TrashedItem] {
        try await pool.read { db in try Self.trashRows(db, owner: ownerID, before: nil, item: nil).map(\.item) }
    }

    /// Brings an item back from the trash with its id, content, versions and shares, in one atomic step.
    public func restoreFromTrash(_ id: ResourceID, as name: String?) async throws -> TrashRestore {
        try await pool.write { db in
            guard let (item, holder) = try Self.trashRows(db, owner: nil, before: nil, item: id).first else { throw WOPIStoreError.notFound }
            guard let root = try String.fetchOne(db, sql: "SELECT root_container_id FROM users WHERE id = ?", arguments: [item.ownerID.rawValue])
                .storedID(column: "users.root_container_id") else { throw WOPIStoreError.notFound }
            let originalIsLive = try Self.container(db, item.originalFolderID)?.ownerID == item.ownerID
            let destination = TrashRules.destination(originalFolder: item.originalFolderID, originalFolderIsLive: originalIsLive, ownerRoot: root)
            let newName = name ?? item.name
            let folder = destination.folderID.rawValue
            switch item.kind {
            case .file:
                if try Row.fetchOne(db, sql: "SELECT 1 FROM files WHERE container_id = ? AND name = ? COLLATE NOCASE", arguments: [folder, newName]) != nil {
                    throw WOPIStoreError.nameTaken(newName)
                }
                try db.execute(sql: "UPDATE files SET container_id = ?, name = ? WHERE id = ?", arguments: [folder, newName, id.rawValue])
            case .container:
                if try Row.fetchOne(db, sql: "SELECT 1 FROM containers WHERE parent_id = ? AND name = ? COLLATE NOCASE", arguments: [folder, newName]) != nil {
                    throw WOPIStoreError.nameTaken(newName)
                }
                try db.execute(sql: "UPDATE containers SET parent_id = ?, name = ? WHERE id = ?", arguments: [folder, newName, id.rawValue])
            }
            try db.execute(sql: "DELETE FROM containers WHERE id = ?", arguments: [holder])
            try db.execute(sql: "UPDATE files SET trash_id = NULL WHERE trash_id = ?", arguments: [id.rawValue])
            try db.execute(sql: "UPDATE containers SET trash_id = NULL WHERE trash_id = ?", arguments: [id.rawValue])
            try db.execute(sql: "DELETE FROM trash_items WHERE item_id = ?", arguments: [id.rawValue])
            return TrashRestore(item: item, destination: destination, name: newName)
        }
    }

    /// Removes for good the trashed items of `ownerID` (everyone's when `nil`) trashed before `trashedBefore`
    /// (all when `nil`), with everything under them; returns them and the bodies to delete.
    public func emptyTrash(ownedBy ownerID: ResourceID?, trashedBefore: Date?) async throws -> TrashPurge {
        try await pool.write { db in
            let items = try Self.trashRows(db, owner: ownerID, before: trashedBefore, item: nil).map(\.item)
            var candidates: Set<String> = []
            for item in items {
                candidates.formUnion(try String.fetchAll(db, sql: """
                    SELECT blob_key FROM files WHERE trash_id = ?1
                    UNION SELECT v.blob_key FROM file_versions v JOIN files f ON f.id = v.file_id WHERE f.trash_id = ?1
                    """, arguments: [item.id.rawValue]))
                // Versions, shares and activities go with their rows; one statement removes a whole tree.
                try db.execute(sql: "DELETE FROM files WHERE trash_id = ?", arguments: [item.id.rawValue])
                try db.execute(sql: "DELETE FROM containers WHERE trash_id = ?", arguments: [item.id.rawValue])
                try db.execute(sql: "DELETE FROM trash_items WHERE item_id = ?", arguments: [item.id.rawValue])
            }
            let orphans = try candidates.filter { key in
                !(try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM files WHERE blob_key = ?1) OR EXISTS (SELECT 1 FROM file_versions WHERE blob_key = ?1)
                    """, arguments: [key]) ?? true)
            }
            return TrashPurge(removed: items, blobs: try orphans.sorted().map { try .stored($0, column: "blob_key") })
        }
    }

    /// A hidden, parentless container that holds one trashed item, so the item's name is free where it was.
    private static func insertHolder(_ db: Database, for item: ResourceID, owner: ResourceID) throws -> String {
        let holder = ResourceID.random().rawValue
        try db.execute(sql: "INSERT INTO containers (id, parent_id, owner_id, name, trash_id) VALUES (?, NULL, ?, 'Trash', ?)",
                       arguments: [holder, owner.rawValue, item.rawValue])
        return holder
    }

    private static func insertTrashRow(_ db: Database, _ item: TrashedItem, holder: String) throws {
        try db.execute(sql: """
            INSERT INTO trash_items (item_id, kind, owner_id, holder_id, original_parent_id, trashed_at) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [item.id.rawValue, item.kind.rawValue, item.ownerID.rawValue, holder, item.originalFolderID.rawValue,
                             item.trashedAt.timeIntervalSince1970])
    }

    /// Trashed items with their holders, filtered by owner, age or id, newest first.
    private static func trashRows(_ db: Database, owner: ResourceID?, before: Date?, item: ResourceID?) throws -> [(item: TrashedItem, holder: String)] {
        try Row.fetchAll(db, sql: """
            SELECT t.item_id, t.kind, t.owner_id, t.holder_id, t.original_parent_id, t.trashed_at,
                   coalesce(f.name, c.name, '') AS name,
                   (SELECT coalesce(sum(size), 0) FROM files WHERE trash_id = t.item_id) AS size
            FROM trash_items t
            LEFT JOIN files f ON t.kind = 'file' AND f.id = t.item_id
            LEFT JOIN containers c ON t.kind = 'container' AND c.id = t.item_id
            WHERE (?1 IS NULL OR t.owner_id = ?1) AND (?2 IS NULL OR t.trashed_at < ?2) AND (?3 IS NULL OR t.item_id = ?3)
            ORDER BY t.trashed_at DESC, t.item_id
            """, arguments: [owner?.rawValue, before?.timeIntervalSince1970, item?.rawValue]).map { row in
            (TrashedItem(id: try id(row, "item_id"), kind: try .stored(row["kind"], column: "trash_items.kind"), ownerID: try id(row, "owner_id"),
                         name: row["name"], originalFolderID: try id(row, "original_parent_id"),
                         trashedAt: Date(timeIntervalSince1970: row["trashed_at"]), size: row["size"]),
             row["holder_id"])
        }
    }
}
