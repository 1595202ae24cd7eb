import Foundation
import WOPICore
import WOPIHost

/// The trash. A trashed item moves into a holder container of its own (parentless, hidden), and it, the
/// holder and everything under it carry the item's id in `trash_id`, which every lookup of a live item
/// excludes; restoring moves it back and clears the mark, emptying deletes the marked rows. Each step is
/// one transaction that first locks the item's row, so a trash racing a restore or a save serializes.
extension SQLStore {
    /// Moves a file to its owner's trash unless someone else holds its lock (`WOPIStoreError.lockConflict(currentLock:reason:)`).
    /// Its name is free in the folder at once; its body stays until the trash is emptied.
    public func trashFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> TrashedItem {
        try await transaction { session in
            guard let file = try await lockedFile(session, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            let holder = try await insertHolder(session, for: id, owner: file.ownerID)
            try await session.execute("UPDATE files SET container_id = \(holder), trash_id = \(id) WHERE id = \(id)")
            let item = TrashedItem(id: id, kind: .file, ownerID: file.ownerID, name: file.name, originalFolderID: file.containerID,
                                   trashedAt: now, size: file.size)
            try await insertTrashRow(session, item, holder: holder)
            return item
        }
    }

    /// Moves a folder with everything under it to its owner's trash, as one item.
    public func trashContainer(_ id: ResourceID, onlyIfEmpty: Bool, now: Date) async throws -> TrashedItem {
        try await transaction { session in
            guard let container = try await liveContainer(session, id, lock: dialect.forUpdate()) else { throw WOPIStoreError.notFound }
            guard let parentID = container.parentID else { throw WOPIStoreError.notAllowed("a user's root folder cannot be deleted") }
            if onlyIfEmpty, try await hasChildren(session, id) {
                throw WOPIStoreError.notEmpty
            }
            if let locked = try await session.first("""
                \(tree(id)) SELECT name, lock_value FROM files WHERE container_id IN (SELECT id FROM tree)
                AND lock_value IS NOT NULL AND lock_expires_at > \(now) LIMIT 1\(unescaped: dialect.forUpdate())
                """) {
                throw WOPIStoreError.lockConflict(currentLock: try locked.text(1), reason: "'\(try locked.text(0))' in the folder is locked")
            }
            let holder = try await insertHolder(session, for: id, owner: container.ownerID)
            try await session.execute("\(tree(id)) UPDATE files SET trash_id = \(id) WHERE container_id IN (SELECT id FROM tree)")
            try await session.execute("\(tree(id)) UPDATE containers SET trash_id = \(id) WHERE id IN (SELECT id FROM tree)")
            try await session.execute("UPDATE containers SET parent_id = \(holder) WHERE id = \(id)")
            let size = try await session.first("SELECT CAST(coalesce(sum(size), 0) AS BIGINT) FROM files WHERE trash_id = \(id)")?.integer(0) ?? 0
            let item = TrashedItem(id: id, kind: .container, ownerID: container.ownerID, name: container.name, originalFolderID: parentID,
                                   trashedAt: now, size: size)
            try await insertTrashRow(session, item, holder: holder)
            return item
        }
    }

    /// The items in `ownerID`'s trash (everyone's when `nil`), newest first, then by id.
    public func trashedItems(ownedBy ownerID: ResourceID?) async throws -> [TrashedItem] {
        try await transaction { session in try await trashRows(session, owner: ownerID, before: nil, item: nil, lock: false).map(\.item) }
    }

    /// Brings an item back from the trash with its id, content, versions and shares, in one atomic step.
    public func restoreFromTrash(_ id: ResourceID, as name: String?) async throws -> TrashRestore {
        try await transaction { session in
            guard let (item, holder) = try await trashRows(session, owner: nil, before: nil, item: id, lock: true).first,
                  let root = try await session.first("SELECT root_container_id FROM users WHERE id = \(item.ownerID)")?
                      .id(0, column: "users.root_container_id") else { throw WOPIStoreError.notFound }
            let original = try await session.first("""
                SELECT owner_id FROM containers WHERE id = \(item.originalFolderID) AND trash_id IS NULL\(unescaped: dialect.forShare)
                """)?.text(0)
            let destination = TrashRules.destination(originalFolder: item.originalFolderID, originalFolderIsLive: original == item.ownerID.rawValue,
                                                     ownerRoot: root)
            let restoredName = name ?? item.name
            let folder = destination.folderID
            let (table, parent) = item.kind == .file ? ("files", "container_id") : ("containers", "parent_id")
            try await requireFree(session, restoredName, in: table, under: parent, folder)
            do {
                try await session.execute("UPDATE \(unescaped: table) SET \(unescaped: parent) = \(folder), name = \(restoredName) WHERE id = \(id)")
            } catch where isUniqueViolation(error) {
                throw WOPIStoreError.nameTaken(restoredName) // a concurrent writer took the name since the check
            }
            try await session.execute("DELETE FROM containers WHERE id = \(holder)")
            try await session.execute("UPDATE files SET trash_id = NULL WHERE trash_id = \(id)")
            try await session.execute("UPDATE containers SET trash_id = NULL WHERE trash_id = \(id)")
            try await session.execute("DELETE FROM trash_items WHERE item_id = \(id)")
            return TrashRestore(item: item, destination: destination, name: restoredName)
        }
    }

    /// Removes for good the trashed items of `ownerID` (everyone's when `nil`) trashed before `trashedBefore`
    /// (all when `nil`), with everything under them; returns them and the bodies to delete.
    public func emptyTrash(ownedBy ownerID: ResourceID?, trashedBefore: Date?) async throws -> TrashPurge {
        try await purge(owner: ownerID, before: trashedBefore, item: nil)
    }

    /// Removes one item of `ownerID`'s trash for good, as ``emptyTrash(ownedBy:trashedBefore:)`` removes them all.
    public func deleteFromTrash(_ id: ResourceID, ownedBy ownerID: ResourceID) async throws -> TrashPurge {
        let purge = try await purge(owner: ownerID, before: nil, item: id)
        guard !purge.removed.isEmpty else { throw WOPIStoreError.notFound }
        return purge
    }

    /// Removes the trashed items `trashRows` selects, with everything under them, in one transaction.
    private func purge(owner: ResourceID?, before: Date?, item: ResourceID?) async throws -> TrashPurge {
        try await transaction { session in
            let items = try await trashRows(session, owner: owner, before: before, item: item, lock: true).map(\.item)
            var candidates: Set<String> = []
            for item in items {
                candidates.formUnion(try await session.rows("""
                    SELECT blob_key FROM files WHERE trash_id = \(item.id)
                    UNION SELECT v.blob_key FROM file_versions v JOIN files f ON f.id = v.file_id WHERE f.trash_id = \(item.id)
                    """).map { try $0.text(0) })
                // Versions, shares and activities go with their rows; one statement removes a whole tree.
                try await session.execute("DELETE FROM files WHERE trash_id = \(item.id)")
                try await session.execute("DELETE FROM containers WHERE trash_id = \(item.id)")
                try await session.execute("DELETE FROM trash_items WHERE item_id = \(item.id)")
            }
            return TrashPurge(removed: items, blobs: try await unreferenced(candidates, session))
        }
    }

    /// `WITH RECURSIVE tree(id)`: the container `id` and every container under it.
    private func tree(_ id: ResourceID) -> SQLStatement {
        "WITH RECURSIVE tree(id) AS (SELECT CAST(\(id) AS TEXT) UNION SELECT c.id FROM containers c JOIN tree ON c.parent_id = tree.id)"
    }

    /// A hidden, parentless container that holds one trashed item, so the item's name is free where it was.
    private func insertHolder(_ session: Session, for item: ResourceID, owner: ResourceID) async throws -> ResourceID {
        let holder = ResourceID.random()
        try await session.execute("INSERT INTO containers (id, parent_id, owner_id, name, trash_id) VALUES (\(holder), NULL, \(owner), 'Trash', \(item))")
        return holder
    }

    private func insertTrashRow(_ session: Session, _ item: TrashedItem, holder: ResourceID) async throws {
        try await session.execute("""
            INSERT INTO trash_items (item_id, kind, owner_id, holder_id, original_parent_id, trashed_at)
            VALUES (\(item.id), \(item.kind.rawValue), \(item.ownerID), \(holder), \(item.originalFolderID), \(item.trashedAt))
            """)
    }

    /// Trashed items with their holders, filtered by owner, age or id, newest first; `lock` takes their rows' locks.
    private func trashRows(_ session: Session, owner: ResourceID?, before: Date?, item: ResourceID?,
                           lock: Bool) async throws -> [(item: TrashedItem, holder: ResourceID)] {
        try await session.rows("""
            SELECT t.item_id, t.kind, t.owner_id, t.holder_id, t.original_parent_id, t.trashed_at, coalesce(f.name, c.name, ''),
                   (SELECT CAST(coalesce(sum(size), 0) AS BIGINT) FROM files WHERE trash_id = t.item_id)
            FROM trash_items t
            LEFT JOIN files f ON t.kind = 'file' AND f.id = t.item_id
            LEFT JOIN containers c ON t.kind = 'container' AND c.id = t.item_id
            WHERE (CAST(\(owner) AS TEXT) IS NULL OR t.owner_id = \(owner))
              AND (CAST(\(before) AS DOUBLE PRECISION) IS NULL OR t.trashed_at < \(before))
              AND (CAST(\(item) AS TEXT) IS NULL OR t.item_id = \(item))
            ORDER BY t.trashed_at DESC, t.item_id\(unescaped: lock ? dialect.forUpdate(of: "t") : "")
            """).map { row in
            (TrashedItem(id: try row.id(0, column: "trash_items.item_id"), kind: try .stored(row.text(1), column: "trash_items.kind"),
                         ownerID: try row.id(2, column: "trash_items.owner_id"), name: try row.text(6),
                         originalFolderID: try row.id(4, column: "trash_items.original_parent_id"), trashedAt: try row.date(5),
                         size: try row.integer(7)),
             try row.id(3, column: "trash_items.holder_id"))
        }
    }
}
