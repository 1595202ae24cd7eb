import Foundation
import Testing
import WOPICore
import WOPIHost

/// Version history and lock administration: pruning, shared bodies after a restore, lock refusals.
extension StoreConformance {
    /// vera's `Doc.docx`, with the empty body "A".
    private static func versionedFile(in store: any WOPIStore) async throws -> (FileRecord, UserRecord) {
        let user = try await store.createUser(name: "vera", displayName: "Vera", passwordHash: .unusable)
        let file = try await store.createFile(named: "Doc.docx", in: user.rootContainerID, blob: emptyBlob("A"), replacing: false, now: Date()).file
        return (file, user)
    }

    /// An empty body (WOPI lets an unlocked file of size 0 be written without a lock), told apart by its hash.
    private static func emptyBlob(_ tag: String) -> StoredBlob {
        StoredBlob(key: .random(), size: 0, sha256: "sha-\(tag)")
    }

    func pruning(_ store: any WOPIStore & AuthorizationStore) async throws {
        let (file, user) = try await Self.versionedFile(in: store)
        let a = file.blobKey
        let b = Self.emptyBlob("B"), c = Self.emptyBlob("C"), d = Self.emptyBlob("D")
        let first = try await store.saveContent(file.id, with: b, lock: nil, savedBy: user.id, keepVersions: 2, now: Date())
        #expect(first.droppedBlobs.isEmpty)
        #expect(first.previous.version == file.version && first.file.version > file.version)
        _ = try await store.saveContent(file.id, with: c, lock: nil, savedBy: user.id, keepVersions: 2, now: Date())
        let third = try await store.saveContent(file.id, with: d, lock: nil, savedBy: user.id, keepVersions: 2, now: Date())
        #expect(third.droppedBlobs == [a], "A is the oldest beyond 2 kept versions")
        let versions = try await store.versions(of: file.id)
        #expect(versions.map(\.blobKey) == [d.key, c.key, b.key], "current first, then kept, newest first")
        #expect(versions.first?.modifiedBy == user.id)
        #expect(try await store.referencedBlobs() == [b.key, c.key, d.key])
        // The current body and the kept ones, each with the size and SHA-256 it was recorded with.
        let bodies = try await store.referencedBodies()
        #expect(bodies.count == 3 && Set(bodies) == [b, c, d], "\(bodies)")
        let none = try await store.saveContent(file.id, with: Self.emptyBlob("E"), lock: nil, savedBy: nil, keepVersions: 0, now: Date())
        #expect(Set(none.droppedBlobs) == [d.key, c.key, b.key], "keepVersions 0 drops the replaced body and the whole history")
    }

    func saveKinds(_ store: any WOPIStore & AuthorizationStore) async throws {
        let (file, user) = try await Self.versionedFile(in: store)
        _ = try await store.saveContent(file.id, with: Self.emptyBlob("B"), lock: nil, savedBy: user.id, saveKinds: [.modifiedByUser, .autosave], seenModifiedTime: nil,
                                        keepVersions: 5, now: Date())
        _ = try await store.saveContent(file.id, with: Self.emptyBlob("C"), lock: nil, savedBy: user.id, saveKinds: [.exitSave], seenModifiedTime: nil,
                                        keepVersions: 5, now: Date())
        #expect(try await store.versions(of: file.id).map(\.saveKinds) == [[.exitSave], [.modifiedByUser, .autosave], nil])
        _ = try await store.saveContent(file.id, with: Self.emptyBlob("D"), lock: nil, savedBy: user.id, keepVersions: 5, now: Date())
        _ = try await store.restoreVersion(file.id, version: file.version, restoredBy: nil, keepVersions: 5, now: Date())
        #expect(try await store.versions(of: file.id).map(\.saveKinds) == [nil, nil, [.exitSave], [.modifiedByUser, .autosave], nil])
    }

    func seenModifiedTime(_ store: any WOPIStore & AuthorizationStore) async throws {
        let (file, user) = try await Self.versionedFile(in: store)
        let stale = file.modifiedAt.addingTimeInterval(-60).formatted(.iso8601)
        await #expect(throws: WOPIStoreError.changedInStorage) {
            _ = try await store.saveContent(file.id, with: Self.emptyBlob("B"), lock: nil, savedBy: user.id, saveKinds: nil, seenModifiedTime: stale,
                                            keepVersions: 5, now: Date())
        }
        #expect(try await store.versions(of: file.id).map(\.sha256) == ["sha-A"])
        let saved = try await store.saveContent(file.id, with: Self.emptyBlob("C"), lock: nil, savedBy: user.id, saveKinds: nil,
                                                seenModifiedTime: file.modifiedAt.formatted(.iso8601), keepVersions: 5, now: Date())
        #expect(saved.file.sha256 == "sha-C")
    }

    func restoreSharesBodies(_ store: any WOPIStore & AuthorizationStore) async throws {
        let (file, user) = try await Self.versionedFile(in: store)
        let a = file.blobKey
        let b = Self.emptyBlob("B")
        _ = try await store.saveContent(file.id, with: b, lock: nil, savedBy: user.id, keepVersions: 1, now: Date())
        let restored = try await store.restoreVersion(file.id, version: file.version, restoredBy: nil, keepVersions: 1, now: Date())
        #expect(restored.file.blobKey == a && restored.file.sha256 == "sha-A")
        #expect(restored.droppedBlobs.isEmpty, "A is current again, B is the kept version")
        // Saving again drops the kept version that shares nothing, and never the body now current.
        let next = try await store.saveContent(file.id, with: Self.emptyBlob("C"), lock: nil, savedBy: user.id, keepVersions: 1, now: Date())
        #expect(next.droppedBlobs == [b.key])
        #expect(try await store.referencedBlobs().contains(a), "A is kept as the replaced version")

        let lock = try #require(WOPILock("held"))
        _ = try await store.updateLock(file.id, request: .lock(lock), now: Date())
        await #expect(throws: WOPIStoreError.lockConflict(currentLock: "held", reason: "the file is locked")) {
            _ = try await store.restoreVersion(file.id, version: next.previous.version, restoredBy: nil, keepVersions: 1, now: Date())
        }
        #expect(try await store.activeLocks(at: Date()).map(\.id) == [file.id])
        let broken = try await store.breakLock(file.id, now: Date())
        #expect(broken.removed?.lock == lock)
        #expect(try await store.activeLocks(at: Date()).isEmpty)
        #expect(try await store.breakLock(file.id, now: Date()).removed == nil)
        await #expect(throws: WOPIStoreError.notFound) {
            _ = try await store.restoreVersion(file.id, version: 1_000_000, restoredBy: nil, keepVersions: 1, now: Date())
        }
    }
}
