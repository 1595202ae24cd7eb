import Foundation
import Testing
import WOPICore
import WOPIHost

/// Sharing: roles from ownership, a file's own share and every folder above it, and the access reads
/// every WOPI request starts with.
extension StoreConformance {
    /// alice owns `Projects/Plans/plan.docx` and `top.docx`; bob and carol own nothing of hers.
    struct Tree {
        var alice, bob, carol: UserRecord
        var projects, plans: ContainerRecord
        var plan, top: FileRecord
    }

    func makeTree(_ store: any WOPIStore) async throws -> Tree {
        let now = Self.now
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        let carol = try await store.createUser(name: "carol", displayName: "Carol", passwordHash: .unusable)
        let projects = try await store.createContainer(named: "Projects", in: alice.rootContainerID)
        let plans = try await store.createContainer(named: "Plans", in: projects.id)
        let plan = try await store.createFile(named: "plan.docx", in: plans.id, blob: .fake(), replacing: false, now: now).file
        let top = try await store.createFile(named: "top.docx", in: alice.rootContainerID, blob: .fake(), replacing: false, now: now).file
        return Tree(alice: alice, bob: bob, carol: carol, projects: projects, plans: plans, plan: plan, top: top)
    }

    func accessReadsRunManyAtOnce(_ subject: Subject) async throws {
        let now = Self.now
        let store = subject.store
        let t = try await makeTree(store)
        let files = [t.plan, t.top]
        let (alice, plans) = (t.alice, t.plans)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let expected = files[index % 2]
                    let access = try await store.fileAccess(expected.id, by: alice.id)
                    #expect(access?.file == expected && access?.user == alice && access?.role == .owner)
                    #expect(try await store.containerAccess(plans.id, by: alice.id)?.container == plans)
                    #expect(try await store.user(id: alice.id) == alice)
                }
            }
            try await group.waitForAll()
        }
        try await subject.withSecondHost { second in
            let renamed = try await second.renameFile(t.plan.id, to: "renamed.docx", lock: nil, now: now)
            #expect(try await store.fileAccess(t.plan.id, by: t.alice.id)?.file == renamed)
            let locked = try await second.updateLock(t.plan.id, request: .lock(WOPILock("L")!), now: now).file
            #expect(locked.lock != nil)
            #expect(try await store.fileAccess(t.plan.id, by: t.alice.id)?.file == locked)
            _ = try await second.share(t.plans.id, kind: .container, with: t.bob.id, role: .editor, now: now)
            #expect(try await store.fileAccess(t.plan.id, by: t.bob.id)?.role == .editor)
            #expect(try await store.containerAccess(t.plans.id, by: t.bob.id)?.role == .editor)
        }
        #expect(try await store.user(id: .random()) == nil)
        #expect(try await store.containerAccess(.random(), by: t.alice.id)?.container == nil)
        #expect(try await store.fileAccess(.random(), by: t.alice.id)?.file == nil)
    }

    func rolesComeFromEveryFolderAbove(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let t = try await makeTree(store)
        // The owner: everything, in one read with the folder's name.
        let own = try #require(try await store.fileAccess(t.plan.id, by: t.alice.id))
        #expect(own.user == t.alice && own.file == t.plan && own.role == .owner && own.containerRole == .owner && own.containerName == "Plans")
        // Nothing shared: bob sees that the file exists but has no role.
        let none = try #require(try await store.fileAccess(t.plan.id, by: t.bob.id))
        #expect(none.file == t.plan && none.role == nil && none.containerRole == nil)
        #expect(try await store.containerAccess(t.projects.id, by: t.bob.id)?.role == nil)

        // A folder two levels up shared as viewer reaches the file and the folder in between.
        let share = try await store.share(t.projects.id, kind: .container, with: t.bob.id, role: .viewer, now: now)
        #expect(share == ShareRecord(itemID: t.projects.id, itemKind: .container, userID: t.bob.id, role: .viewer, sharedAt: now))
        #expect(try await store.fileAccess(t.plan.id, by: t.bob.id)?.role == .viewer)
        #expect(try await store.fileAccess(t.plan.id, by: t.bob.id)?.containerRole == .viewer)
        #expect(try await store.containerAccess(t.plans.id, by: t.bob.id)?.role == .viewer)
        #expect(try await store.fileAccess(t.top.id, by: t.bob.id)?.role == nil, "a sibling of the shared folder is not shared")
        #expect(try await store.containerAccess(t.alice.rootContainerID, by: t.bob.id)?.role == nil, "nor is the folder above it")

        // The file itself shared as editor: the higher role wins for the file, the folder stays viewer.
        _ = try await store.share(t.plan.id, kind: .file, with: t.bob.id, role: .editor, now: now.addingTimeInterval(1))
        let both = try #require(try await store.fileAccess(t.plan.id, by: t.bob.id))
        #expect(both.role == .editor && both.containerRole == .viewer)

        // Sharing again replaces the role; removing ends it at once.
        _ = try await store.share(t.projects.id, kind: .container, with: t.bob.id, role: .editor, now: now.addingTimeInterval(2))
        #expect(try await store.containerAccess(t.plans.id, by: t.bob.id)?.role == .editor)
        #expect(try await store.removeShare(of: t.projects.id, with: t.bob.id))
        #expect(try await store.removeShare(of: t.projects.id, with: t.bob.id) == false)
        #expect(try await store.containerAccess(t.plans.id, by: t.bob.id)?.role == nil)
        #expect(try await store.fileAccess(t.plan.id, by: t.bob.id)?.role == .editor, "the file's own share remains")
        #expect(try await store.fileAccess(t.plan.id, by: t.bob.id)?.containerRole == nil)

        // Unknown users and files.
        #expect(try await store.fileAccess(t.plan.id, by: .random()) == nil)
        let missing = try #require(try await store.fileAccess(.random(), by: t.bob.id))
        #expect(missing.file == nil && missing.role == nil && missing.containerName == "")
        #expect(try await store.containerAccess(.random(), by: t.bob.id)?.container == nil)
    }

    func sharesAreListedAndRefused(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let t = try await makeTree(store)
        let first = try await store.share(t.top.id, kind: .file, with: t.carol.id, role: .viewer, now: now)
        let second = try await store.share(t.plans.id, kind: .container, with: t.bob.id, role: .editor, now: now.addingTimeInterval(1))
        let third = try await store.share(t.top.id, kind: .file, with: t.bob.id, role: .editor, now: now.addingTimeInterval(2))
        #expect(try await store.shares(with: nil) == [first, second, third], "oldest first, every field round-tripped")
        #expect(try await store.shares(with: t.bob.id) == [second, third])
        #expect(try await store.shares(of: t.top.id) == [first, third])
        #expect(try await store.shares(with: t.alice.id).isEmpty)

        // Refusals change nothing.
        await #expect(throws: WOPIStoreError.notAllowed("the user owns this item")) {
            try await store.share(t.top.id, kind: .file, with: t.alice.id, role: .viewer, now: now)
        }
        await #expect(throws: WOPIStoreError.self) { try await store.share(t.top.id, kind: .file, with: t.bob.id, role: .owner, now: now) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.share(.random(), kind: .file, with: t.bob.id, role: .viewer, now: now) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.share(t.top.id, kind: .container, with: t.bob.id, role: .viewer, now: now) }
        await #expect(throws: WOPIStoreError.notFound) { try await store.share(t.top.id, kind: .file, with: .random(), role: .viewer, now: now) }
        #expect(try await store.shares(with: nil) == [first, second, third])

        // Shares go with their item and with their user.
        _ = try await store.deleteFile(t.top.id, lock: nil, now: now)
        #expect(try await store.shares(with: nil) == [second])
        _ = try await store.removeUser(id: t.bob.id)
        #expect(try await store.shares(with: nil).isEmpty)
        _ = try await store.share(t.projects.id, kind: .container, with: t.carol.id, role: .viewer, now: now)
        _ = try await store.removeUser(id: t.alice.id)
        #expect(try await store.shares(with: nil).isEmpty)
    }

    func aRemovedShareIsSeenAtOnce(_ subject: Subject) async throws {
        let now = Self.now
        let store = subject.store
        let t = try await makeTree(store)
        _ = try await store.share(t.plans.id, kind: .container, with: t.bob.id, role: .editor, now: now)
        let (before, removed, after) = try await subject.withSecondHost { other in
            let before = try await other.fileAccess(t.plan.id, by: t.bob.id)?.role
            let removed = try await store.removeShare(of: t.plans.id, with: t.bob.id)
            return (before, removed, try await other.fileAccess(t.plan.id, by: t.bob.id)?.role)
        }
        #expect(before == .editor && removed && after == nil)
    }
}
