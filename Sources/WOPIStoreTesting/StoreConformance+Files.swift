import Foundation
import Testing
import WOPICore
import WOPIHost

/// Users, containers, files, locks and paged listings.
extension StoreConformance {
    func usersAreUnique(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let alice = try await store.createUser(name: "Alice", displayName: "Alice A", passwordHash: .unusable)
        await #expect(throws: WOPIStoreError.nameTaken("alice")) {
            try await store.createUser(name: "alice", displayName: "Other", passwordHash: .unusable)
        }
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        #expect(try await store.user(id: alice.id) == alice)
        #expect(try await store.user(named: "ALICE")?.id == alice.id)
        #expect(try await store.user(named: "nobody") == nil)
        #expect(try await store.users().map(\.name) == ["Alice", "bob"])

        let root = try #require(try await store.container(id: alice.rootContainerID))
        #expect(root.parentID == nil && root.ownerID == alice.id && root.name == "Alice A's files")

        try await store.setUserInfo("{\"theme\":1}", for: alice.id)
        #expect(try await store.user(id: alice.id)?.userInfo == "{\"theme\":1}")
        await #expect(throws: WOPIStoreError.notFound) { try await store.setUserInfo("x", for: .random()) }

        let folder = try await store.createContainer(named: "Deep", in: alice.rootContainerID)
        let deeper = try await store.createContainer(named: "Deeper", in: folder.id)
        let blobs = [StoredBlob.fake(), StoredBlob.fake()]
        _ = try await store.createFile(named: "a.docx", in: alice.rootContainerID, blob: blobs[0], replacing: false, now: now)
        _ = try await store.createFile(named: "b.docx", in: deeper.id, blob: blobs[1], replacing: false, now: now)
        let bobsFile = try await store.createFile(named: "b.docx", in: bob.rootContainerID, blob: .fake(), replacing: false, now: now).file

        #expect(Set(try await store.removeUser(id: alice.id)) == Set(blobs.map(\.key)))
        #expect(try await store.user(id: alice.id) == nil)
        #expect(try await store.container(id: deeper.id) == nil)
        #expect(try await store.container(id: alice.rootContainerID) == nil)
        #expect(try await store.file(id: bobsFile.id) == bobsFile, "another user's files stay")
        await #expect(throws: WOPIStoreError.notFound) { try await store.removeUser(id: alice.id) }
    }

    func containersKeepSiblingNamesUnique(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let user = try await store.createUser(name: "carol", displayName: "Carol", passwordHash: .unusable)
        let root = user.rootContainerID
        let reports = try await store.createContainer(named: "Reports", in: root)
        _ = try await store.createContainer(named: "archive", in: root)
        await #expect(throws: WOPIStoreError.nameTaken("REPORTS")) { try await store.createContainer(named: "REPORTS", in: root) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.createContainer(named: "x", in: .random()) }
        let q4 = try await store.createContainer(named: "Q4", in: reports.id)
        #expect(q4.ownerID == user.id && q4.parentID == reports.id)

        #expect(try await store.containerPath(to: q4.id).map(\.id) == [root, reports.id, q4.id])
        await #expect(throws: WOPIStoreError.notFound) { try await store.containerPath(to: .random()) }

        _ = try await store.createFile(named: "b.xlsx", in: root, blob: .fake(), replacing: false, now: now)
        _ = try await store.createFile(named: "A.docx", in: root, blob: .fake(), replacing: false, now: now)
        let children = try await store.children(of: root)
        #expect(children.containers.map(\.name) == ["archive", "Reports"], "sorted by name, ignoring case")
        #expect(children.files.map(\.name) == ["A.docx", "b.xlsx"])
        await #expect(throws: WOPIStoreError.notFound) { try await store.children(of: .random()) }

        await #expect(throws: WOPIStoreError.nameTaken("Archive")) { try await store.renameContainer(reports.id, to: "Archive") }
        #expect(try await store.renameContainer(reports.id, to: "Finance").name == "Finance")
        #expect(try await store.renameContainer(reports.id, to: "FINANCE").name == "FINANCE", "a container may change its own case")
        #expect(try await store.renameContainer(root, to: "My files").name == "My files", "a root can be renamed")
        #expect(try await store.container(id: reports.id)?.name == "FINANCE")

        await #expect(throws: WOPIStoreError.notEmpty) { try await store.deleteContainer(reports.id) }
        await #expect(throws: WOPIStoreError.notEmpty) { try await store.deleteContainer(root) }
        try await store.deleteContainer(q4.id)
        try await store.deleteContainer(reports.id)
        #expect(try await store.container(id: reports.id) == nil)
        await #expect(throws: WOPIStoreError.notFound) { try await store.deleteContainer(reports.id) }
    }

    func filesGetNewVersions(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let user = try await store.createUser(name: "dave", displayName: "Dave", passwordHash: .unusable)
        let folder = user.rootContainerID
        let first = StoredBlob.fake(size: 0, tag: "first")
        let file = try await store.createFile(named: "Plan.docx", in: folder, blob: first, replacing: false, now: now).file
        #expect(file.size == 0 && file.blobKey == first.key && file.sha256 == first.sha256 && file.modifiedAt == now && file.lock == nil)
        #expect(try await store.file(id: file.id) == file, "a record reads back exactly, dates included")
        #expect(try await store.file(named: "PLAN.DOCX", in: folder)?.id == file.id)
        await #expect(throws: WOPIStoreError.nameTaken("Plan.docx")) {
            try await store.createFile(named: "plan.DOCX", in: folder, blob: .fake(), replacing: false, now: now)
        }
        await #expect(throws: WOPIStoreError.notFound) {
            try await store.createFile(named: "x.docx", in: .random(), blob: .fake(), replacing: false, now: now)
        }

        var versions = [file.version]
        let second = StoredBlob.fake(size: 0, tag: "second") // still empty, so an unlocked PutFile may follow
        let replaced = try await store.createFile(named: "plan.docx", in: folder, blob: second, replacing: true, now: now.addingTimeInterval(1))
        #expect(replaced.file.id == file.id && replaced.replacedBlob == first.key && replaced.file.blobKey == second.key)
        versions.append(replaced.file.version)

        let third = StoredBlob.fake(size: 7, tag: "third")
        let saved = try await store.saveContent(file.id, with: third, lock: nil, savedBy: nil, keepVersions: 0, now: now.addingTimeInterval(2))
        #expect(saved.previous.blobKey == second.key && saved.droppedBlobs == [second.key])
        #expect(saved.file.size == 7 && saved.file.sha256 == third.sha256)
        versions.append(saved.file.version)

        let renamed = try await store.renameFile(file.id, to: "Plan v2.docx", lock: nil, now: now)
        #expect(renamed.name == "Plan v2.docx")
        #expect(try await store.file(id: file.id)?.name == "Plan v2.docx")
        versions.append(renamed.version)
        _ = try await store.createFile(named: "Other.docx", in: folder, blob: .fake(), replacing: false, now: now)
        await #expect(throws: WOPIStoreError.nameTaken("other.docx")) { try await store.renameFile(file.id, to: "other.docx", lock: nil, now: now) }

        #expect(try await store.deleteFile(file.id, lock: nil, now: now) == third.key)
        #expect(try await store.file(id: file.id) == nil)
        await #expect(throws: WOPIStoreError.notFound) { try await store.deleteFile(file.id, lock: nil, now: now) }
        let again = try await store.createFile(named: "Plan v2.docx", in: folder, blob: .fake(), replacing: false, now: now).file
        versions.append(again.version)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count, "versions \(versions) must strictly increase")
        #expect(try await store.referencedBlobs().count == 2)
    }

    func lockRequestsFollowTheRules(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let user = try await store.createUser(name: "erin", displayName: "Erin", passwordHash: .unusable)
        let file = try await store.createFile(named: "Book.xlsx", in: user.rootContainerID, blob: .fake(size: 3), replacing: false, now: now).file
        let mine = try #require(WOPILock("mine")), theirs = try #require(WOPILock("{\"S\":\"theirs\"}"))

        let locked = try await store.updateLock(file.id, request: .lock(mine), now: now)
        #expect(locked.decision == .granted(newState: LockState(lock: mine, expiresAt: now.addingTimeInterval(LockRules.lifetime))))
        #expect(try await store.file(id: file.id)?.lock == LockState(lock: mine, expiresAt: now.addingTimeInterval(LockRules.lifetime)))

        let refused = try await store.updateLock(file.id, request: .lock(theirs), now: now)
        #expect(refused.decision == .conflict(currentLock: "mine", reason: "File is locked by another client"))
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "Lock mismatch")) {
            try await store.saveContent(file.id, with: .fake(), lock: theirs, savedBy: nil, keepVersions: 10, now: now)
        }
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "File is locked")) {
            try await store.renameFile(file.id, to: "x.xlsx", lock: nil, now: now)
        }
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "File is locked")) {
            try await store.deleteFile(file.id, lock: nil, now: now)
        }
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "File is locked")) {
            try await store.createFile(named: "book.xlsx", in: user.rootContainerID, blob: .fake(), replacing: true, now: now)
        }
        #expect(try await store.file(id: file.id)?.version == file.version, "refusals change nothing")

        let saved = try await store.saveContent(file.id, with: .fake(size: 9), lock: mine, savedBy: nil, keepVersions: 10, now: now)
        #expect(saved.file.lock?.lock == mine, "saving keeps the lock")
        let later = now.addingTimeInterval(60)
        let swapped = try await store.updateLock(file.id, request: .unlockAndRelock(old: mine, new: theirs), now: later)
        #expect(swapped.decision == .granted(newState: LockState(lock: theirs, expiresAt: later.addingTimeInterval(LockRules.lifetime))))
        #expect(try await store.updateLock(file.id, request: .unlock(mine), now: later).decision
                == .conflict(currentLock: theirs.value, reason: "Lock mismatch"))
        let unlocked = try await store.updateLock(file.id, request: .unlock(theirs), now: later)
        #expect(unlocked.decision == .granted(newState: nil) && unlocked.file.lock == nil)
        #expect(try await store.file(id: file.id)?.lock == nil)
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "", reason: "File is not locked")) {
            try await store.saveContent(file.id, with: .fake(), lock: nil, savedBy: nil, keepVersions: 10, now: later)
        }

        // An expired lock counts as no lock.
        _ = try await store.updateLock(file.id, request: .lock(mine), now: now)
        let expired = now.addingTimeInterval(LockRules.lifetime + 1)
        #expect(try await store.updateLock(file.id, request: .lock(theirs), now: expired).decision
                == .granted(newState: LockState(lock: theirs, expiresAt: expired.addingTimeInterval(LockRules.lifetime))))
        await #expect(throws: WOPIStoreError.notFound) { try await store.updateLock(.random(), request: .lock(mine), now: now) }
    }

    func clientsRacingForOneLock(_ subject: Subject) async throws {
        let now = Self.now
        let first = subject.store
        let user = try await first.createUser(name: "race", displayName: "Race", passwordHash: .unusable)
        let file = try await first.createFile(named: "Race.docx", in: user.rootContainerID, blob: .fake(), replacing: false, now: now).file
        try await subject.withSecondHost { second in
            let winner = try await Self.raceForOneLock(clients: 64, named: "client", on: [first, second]) { store, lock in
                try await store.updateLock(file.id, request: .lock(lock), now: now).decision
            }
            #expect(try await second.file(id: file.id)?.lock?.lock.value == winner)
        }
    }

    /// `clients` lock requests at once, alternating between `stores`, each asking for its own lock
    /// (`named`-N): requires exactly one winner and every other refused with the winner's lock; returns it.
    static func raceForOneLock(clients: Int, named prefix: String, on stores: [any WOPIStore & AuthorizationStore],
                               _ request: @escaping @Sendable (any WOPIStore & AuthorizationStore, WOPILock) async throws -> LockRules.Decision)
        async throws -> String {
        let decisions = try await withThrowingTaskGroup(of: (String, LockRules.Decision).self) { group in
            for client in 0..<clients {
                let lock = "\(prefix)-\(client)"
                group.addTask { (lock, try await request(stores[client % stores.count], WOPILock(lock)!)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = decisions.filter { if case .granted = $0.1 { true } else { false } }
        try #require(winners.count == 1, "winners: \(winners.map(\.0))")
        let winner = winners[0].0
        for (lock, decision) in decisions where lock != winner {
            #expect(decision == .conflict(currentLock: winner, reason: "File is locked by another client"))
        }
        return winner
    }

    func lockChangesFromAStaleCopy(_ subject: Subject) async throws {
        let now = Self.now
        let first = subject.store
        let user = try await first.createUser(name: "stale", displayName: "Stale", passwordHash: .unusable)
        let unlocked = try await first.createFile(named: "Stale.docx", in: user.rootContainerID, blob: .fake(), replacing: false, now: now).file
        let a = try #require(WOPILock("A")), b = try #require(WOPILock("B"))
        try await subject.withSecondHost { second in
            // Another host takes the lock after this copy was read.
            _ = try await second.updateLock(unlocked.id, request: .lock(a), now: now)
            let refused = try await first.updateLock(unlocked, request: .lock(b), now: now)
            #expect(refused.decision == .conflict(currentLock: "A", reason: "File is locked by another client"))
            #expect(refused.file.lock?.lock == a)
            #expect(try await second.file(id: unlocked.id)?.lock?.lock == a, "a refused change from a stale copy changes nothing")

            // A copy read while A was held; the other host releases A, so the copy's UnlockAndRelock finds no lock.
            let lockedCopy = try #require(try await first.file(id: unlocked.id))
            _ = try await second.updateLock(unlocked.id, request: .unlock(a), now: now)
            #expect(try await first.updateLock(lockedCopy, request: .unlockAndRelock(old: a, new: b), now: now).decision
                    == .conflict(currentLock: "", reason: "File is not locked"))
            #expect(try await second.file(id: unlocked.id)?.lock == nil)

            // 32 clients on two hosts, all deciding from one copy of the unlocked file: one winner.
            let copy = try #require(try await first.file(id: unlocked.id))
            let winner = try await Self.raceForOneLock(clients: 32, named: "copy", on: [first, second]) { store, lock in
                try await store.updateLock(copy, request: .lock(lock), now: now).decision
            }
            // A current copy works as the id does.
            let current = try #require(try await second.file(id: unlocked.id))
            #expect(current.lock?.lock.value == winner)
            let released = try await first.updateLock(current, request: .unlock(try #require(WOPILock(winner))), now: now)
            #expect(released.decision == .granted(newState: nil) && released.file.lock == nil)
            #expect(try await second.file(id: unlocked.id)?.lock == nil)
        }
    }

    func pagesConcatenateToTheChildren(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let user = try await store.createUser(name: "pat", displayName: "Pat", passwordHash: .unusable)
        let root = user.rootContainerID
        let other = try await store.createContainer(named: "Elsewhere", in: root)
        let names = ["b.docx", "A.docx", "a1.docx", "Zeta.xlsx", "_under.docx", "z.docx", "B0.pptx", "~tilde.docx", "[x].docx", "ÉTÉ.docx"]
        for name in names {
            _ = try await store.createFile(named: name, in: root, blob: .fake(), replacing: false, now: now)
        }
        _ = try await store.createFile(named: "a0.docx", in: other.id, blob: .fake(), replacing: false, now: now)
        for name in ["beta", "Alpha", "gamma", "Delta"] { _ = try await store.createContainer(named: name, in: root) }

        let children = try await store.children(of: root)
        for limit in [1, 2, 3, 100] {
            let files = try await Self.allPages(limit: limit, name: \.name) { try await store.childFiles(of: root, after: $0, limit: limit) }
            #expect(files == children.files, "limit \(limit)")
            let containers = try await Self.allPages(limit: limit, name: \.name) {
                try await store.childContainers(of: root, after: $0, limit: limit)
            }
            #expect(containers == children.containers, "limit \(limit)")
        }
        #expect(children.files.count == names.count)
        // The cursor compares case-insensitively: "B0.PPTX" starts after "b0.pptx", whatever its case.
        let afterB = try await store.childFiles(of: root, after: "B0.PPTX", limit: 100).map(\.name)
        #expect(afterB == Array(children.files.map(\.name).drop { $0 != "B0.pptx" }.dropFirst()))
        #expect(try await store.childFiles(of: .random(), after: nil, limit: 10).isEmpty)
        #expect(try await store.childContainers(of: other.id, after: nil, limit: 10).isEmpty)
    }

    /// A listing read page by page, as EnumerateChildren reads it: each page after the last name of the one
    /// before, until a page comes back short. Every page holds at most `limit` records.
    private static func allPages<Record>(limit: Int, name: KeyPath<Record, String>,
                                         _ page: (_ after: String?) async throws -> [Record]) async throws -> [Record] {
        var records: [Record] = []
        var cursor: String?
        repeat {
            let next = try await page(cursor)
            #expect(next.count <= limit)
            records += next
            cursor = next.count == limit ? next.last?[keyPath: name] : nil
        } while cursor != nil
        return records
    }
}
