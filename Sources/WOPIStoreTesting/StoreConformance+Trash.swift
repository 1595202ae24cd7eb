import Foundation
import Testing
import WOPICore
import WOPIHost

/// The trash: items hidden from every lookup, restored whole, emptied with their trees, versions and bodies.
extension StoreConformance {
    /// The trash checks' clock: a whole second.
    private static let trashNow = Date(timeIntervalSince1970: 1_800_000_000)

    func trashAndRestoreAFile(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.trashNow
        let owner = try await store.createUser(name: "tess", displayName: "Tess", passwordHash: .unusable)
        let friend = try await store.createUser(name: "finn", displayName: "Finn", passwordHash: .unusable)
        let folder = try await store.createContainer(named: "Reports", in: owner.rootContainerID)
        let first = StoredBlob.fake(size: 0, tag: "v1")
        let file = try await store.createFile(named: "Q4.xlsx", in: folder.id, blob: first, replacing: false, now: now).file
        let second = StoredBlob.fake(tag: "v2")
        let saved = try await store.saveContent(file.id, with: second, lock: nil, savedBy: owner.id, keepVersions: 5, now: now).file
        _ = try await store.share(file.id, kind: .file, with: friend.id, role: .editor, now: now)
        let versions = try await store.versions(of: file.id)

        let trashed = try await store.trashFile(file.id, lock: nil, now: now)
        #expect(trashed == TrashedItem(id: file.id, kind: .file, ownerID: owner.id, name: "Q4.xlsx", originalFolderID: folder.id,
                                       trashedAt: now, size: second.size))
        #expect(try await store.file(id: file.id) == nil)
        #expect(try await store.fileAccess(file.id, by: owner.id)?.file == nil)
        #expect(try await store.fileAccess(file.id, by: friend.id)?.file == nil)
        #expect(try await store.children(of: folder.id).files.isEmpty)
        #expect(try await store.childFiles(of: folder.id, after: nil, limit: 10).isEmpty)
        #expect(try await store.shares(with: friend.id).isEmpty, "a trashed item is not shared with anyone meanwhile")
        await #expect(throws: WOPIStoreError.notFound) { try await store.versions(of: file.id) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.renameFile(file.id, to: "x.xlsx", lock: nil, now: now) }
        #expect(try await store.referencedBlobs().isSuperset(of: [first.key, second.key]), "bodies stay until the trash is emptied")
        #expect(try await store.trashedItems(ownedBy: owner.id) == [trashed])
        #expect(try await store.trashedItems(ownedBy: friend.id).isEmpty)
        #expect(try await store.trashedItems(ownedBy: nil) == [trashed])
        await #expect(throws: WOPIStoreError.notFound) { try await store.trashFile(file.id, lock: nil, now: now) }

        // The name is free at once, and the new file never gets the trashed one's id.
        let replacement = try await store.createFile(named: "q4.xlsx", in: folder.id, blob: StoredBlob.fake(), replacing: false, now: now).file
        #expect(replacement.id != file.id)
        await #expect(throws: WOPIStoreError.nameTaken("Q4.xlsx")) { try await store.restoreFromTrash(file.id, as: nil) }
        #expect(try await store.trashedItems(ownedBy: owner.id) == [trashed], "a refused restore changes nothing")

        let restore = try await store.restoreFromTrash(file.id, as: "Q4 (old).xlsx")
        #expect(restore.destination == .originalFolder(folder.id) && restore.name == "Q4 (old).xlsx" && restore.item == trashed)
        let back = try #require(try await store.file(id: file.id))
        #expect(back.containerID == folder.id && back.name == "Q4 (old).xlsx" && back.blobKey == second.key && back.version == saved.version)
        #expect(try await store.versions(of: file.id) == versions)
        #expect(try await store.shares(of: file.id).map(\.userID) == [friend.id])
        #expect(try await store.fileAccess(file.id, by: friend.id)?.role == .editor)
        #expect(try await store.trashedItems(ownedBy: nil).isEmpty)
        await #expect(throws: WOPIStoreError.notFound) { try await store.restoreFromTrash(file.id, as: nil) }
    }

    func trashAndRestoreAFolder(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.trashNow
        let owner = try await store.createUser(name: "otto", displayName: "Otto", passwordHash: .unusable)
        let root = owner.rootContainerID
        let projects = try await store.createContainer(named: "Projects", in: root)
        let inner = try await store.createContainer(named: "Inner", in: projects.id)
        let top = try await store.createFile(named: "a.docx", in: projects.id, blob: StoredBlob.fake(size: 5), replacing: false, now: now).file
        let deep = try await store.createFile(named: "b.docx", in: inner.id, blob: StoredBlob.fake(size: 7), replacing: false, now: now).file

        await #expect(throws: WOPIStoreError.notEmpty) { try await store.trashContainer(projects.id, onlyIfEmpty: true, now: now) }
        await #expect(throws: WOPIStoreError.self) { try await store.trashContainer(root, onlyIfEmpty: false, now: now) }
        let lock = try #require(WOPILock("editing"))
        _ = try await store.updateLock(deep.id, request: .lock(lock), now: now)
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "editing", reason: "'b.docx' in the folder is locked")) {
            try await store.trashContainer(projects.id, onlyIfEmpty: false, now: now)
        }
        _ = try await store.breakLock(deep.id, now: now)

        let trashed = try await store.trashContainer(projects.id, onlyIfEmpty: false, now: now)
        #expect(trashed.kind == .container && trashed.name == "Projects" && trashed.originalFolderID == root && trashed.size == 12)
        #expect(try await store.children(of: root).containers.isEmpty)
        for id in [projects.id, inner.id] {
            #expect(try await store.container(id: id) == nil)
            #expect(try await store.containerAccess(id, by: owner.id)?.container == nil)
        }
        for id in [top.id, deep.id] {
            #expect(try await store.file(id: id) == nil)
            #expect(try await store.fileAccess(id, by: owner.id)?.file == nil)
        }
        await #expect(throws: WOPIStoreError.notFound) { try await store.createContainer(named: "New", in: inner.id) }
        #expect(try await store.trashedItems(ownedBy: owner.id).map(\.id) == [projects.id], "one item, not one per child")

        let restore = try await store.restoreFromTrash(projects.id, as: nil)
        #expect(restore.destination == .originalFolder(root))
        #expect(try await store.children(of: root).containers.map(\.id) == [projects.id])
        #expect(try await store.children(of: projects.id).containers.map(\.id) == [inner.id])
        #expect(try await store.children(of: inner.id).files.map(\.id) == [deep.id])
        #expect(try await store.fileAccess(top.id, by: owner.id)?.file?.name == "a.docx")
    }

    func restoreToRoot(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.trashNow
        let owner = try await store.createUser(name: "rosa", displayName: "Rosa", passwordHash: .unusable)
        let folder = try await store.createContainer(named: "Old", in: owner.rootContainerID)
        let file = try await store.createFile(named: "keep.docx", in: folder.id, blob: StoredBlob.fake(), replacing: false, now: now).file
        _ = try await store.trashFile(file.id, lock: nil, now: now)
        _ = try await store.trashContainer(folder.id, onlyIfEmpty: true, now: now.addingTimeInterval(1))
        #expect(try await store.trashedItems(ownedBy: owner.id).map(\.id) == [folder.id, file.id], "newest first")

        let restore = try await store.restoreFromTrash(file.id, as: nil)
        #expect(restore.destination == .ownerRoot(owner.rootContainerID))
        #expect(try await store.file(id: file.id)?.containerID == owner.rootContainerID)
        let purge = try await store.emptyTrash(ownedBy: owner.id, trashedBefore: nil)
        #expect(purge.removed.map(\.id) == [folder.id] && purge.blobs.isEmpty)
        #expect(try await store.file(id: file.id) != nil, "the restored file is not emptied with its old folder")
    }

    func emptyTheTrash(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.trashNow
        let owner = try await store.createUser(name: "emil", displayName: "Emil", passwordHash: .unusable)
        let other = try await store.createUser(name: "ida", displayName: "Ida", passwordHash: .unusable)
        let day: TimeInterval = 86_400
        let old = try await store.createFile(named: "old.docx", in: owner.rootContainerID, blob: StoredBlob.fake(size: 0, tag: "o1"), replacing: false, now: now).file
        let oldSave = StoredBlob.fake(tag: "o2")
        _ = try await store.saveContent(old.id, with: oldSave, lock: nil, savedBy: owner.id, keepVersions: 5, now: now)
        let folder = try await store.createContainer(named: "Box", in: owner.rootContainerID)
        let inBox = try await store.createFile(named: "in.docx", in: folder.id, blob: StoredBlob.fake(tag: "b"), replacing: false, now: now).file
        let recent = try await store.createFile(named: "recent.docx", in: owner.rootContainerID, blob: StoredBlob.fake(), replacing: false, now: now).file
        let othersFile = try await store.createFile(named: "hers.docx", in: other.rootContainerID, blob: StoredBlob.fake(), replacing: false, now: now).file
        _ = try await store.share(folder.id, kind: .container, with: other.id, role: .viewer, now: now)

        _ = try await store.trashFile(old.id, lock: nil, now: now.addingTimeInterval(-40 * day))
        _ = try await store.trashContainer(folder.id, onlyIfEmpty: false, now: now.addingTimeInterval(-31 * day))
        _ = try await store.trashFile(recent.id, lock: nil, now: now.addingTimeInterval(-1 * day))
        _ = try await store.trashFile(othersFile.id, lock: nil, now: now.addingTimeInterval(-90 * day))

        let cutoff = TrashRules.purgeCutoff(now: now, retentionDays: 30)
        let purge = try await store.emptyTrash(ownedBy: owner.id, trashedBefore: cutoff)
        #expect(Set(purge.removed.map(\.id)) == [old.id, folder.id])
        #expect(Set(purge.blobs) == [old.blobKey, oldSave.key, inBox.blobKey], "current content and kept versions of everything under them")
        let referenced = try await store.referencedBlobs()
        #expect(referenced.isDisjoint(with: purge.blobs))
        #expect(try await store.trashedItems(ownedBy: nil).map(\.id) == [recent.id, othersFile.id])
        await #expect(throws: WOPIStoreError.notFound) { try await store.restoreFromTrash(old.id, as: nil) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.restoreFromTrash(folder.id, as: nil) }
        #expect(try await store.shares(of: folder.id).isEmpty)

        // One item at a time: only the owner's own, only what is in the trash, with its bodies.
        let single = try await store.createFile(named: "single.docx", in: owner.rootContainerID, blob: StoredBlob.fake(tag: "s"), replacing: false, now: now).file
        _ = try await store.trashFile(single.id, lock: nil, now: now)
        await #expect(throws: WOPIStoreError.notFound) { try await store.deleteFromTrash(othersFile.id, ownedBy: owner.id) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.deleteFromTrash(old.id, ownedBy: owner.id) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.deleteFromTrash(recent.id, ownedBy: other.id) }
        let one = try await store.deleteFromTrash(single.id, ownedBy: owner.id)
        #expect(one.removed.map(\.id) == [single.id] && one.blobs == [single.blobKey])
        #expect(try await store.trashedItems(ownedBy: nil).map(\.id) == [recent.id, othersFile.id])
        #expect(try await store.file(id: single.id) == nil)

        // Removing a user removes their trash; emptying everything takes the rest.
        _ = try await store.removeUser(id: other.id)
        #expect(try await store.trashedItems(ownedBy: nil).map(\.id) == [recent.id])
        #expect(try await store.emptyTrash(ownedBy: nil, trashedBefore: nil).removed.map(\.id) == [recent.id])
        #expect(try await store.trashedItems(ownedBy: nil).isEmpty)
        #expect(try await store.file(id: recent.id) == nil)
    }

    func restoreFolderAs(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.trashNow
        let owner = try await store.createUser(name: "nora", displayName: "Nora", passwordHash: .unusable)
        let folder = try await store.createContainer(named: "Plans", in: owner.rootContainerID)
        _ = try await store.trashContainer(folder.id, onlyIfEmpty: true, now: now)
        _ = try await store.createContainer(named: "PLANS", in: owner.rootContainerID)
        await #expect(throws: WOPIStoreError.nameTaken("Plans")) { try await store.restoreFromTrash(folder.id, as: nil) }
        #expect(try await store.restoreFromTrash(folder.id, as: "Plans 2").name == "Plans 2")
        #expect(try await store.container(id: folder.id)?.name == "Plans 2")
    }
}
