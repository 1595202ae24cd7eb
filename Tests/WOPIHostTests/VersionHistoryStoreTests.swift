import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Version history and lock administration, part of the store conformance suite: run
/// against SQLite and PostgreSQL alike — pruning, shared bodies after a restore, lock refusals.
@Suite struct VersionHistoryStoreTests {
    static func withStore(_ kind: StoreKind, _ body: (any WOPIStore, FileRecord, UserRecord) async throws -> Void) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "vera", displayName: "Vera", passwordHash: .unusable)
            let file = try await store.createFile(named: "Doc.docx", in: user.rootContainerID, blob: blob("A"), replacing: false, now: Date()).file
            try await body(store, file, user)
        }
    }

    /// An empty body (WOPI lets an unlocked file of size 0 be written without a lock), told apart by its hash.
    static func blob(_ tag: String) -> StoredBlob {
        StoredBlob(key: .random(), size: 0, sha256: "sha-\(tag)")
    }

    @Test("each save keeps the replaced content; beyond keepVersions the oldest go and their bodies are reported as dropped",
          arguments: StoreKind.allCases)
    func pruning(_ kind: StoreKind) async throws {
        try await Self.withStore(kind) { store, file, user in
            let a = file.blobKey
            let b = Self.blob("B"), c = Self.blob("C"), d = Self.blob("D")
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
            let none = try await store.saveContent(file.id, with: Self.blob("E"), lock: nil, savedBy: nil, keepVersions: 0, now: Date())
            #expect(Set(none.droppedBlobs) == [d.key, c.key, b.key], "keepVersions 0 drops the replaced body and the whole history")
        }
    }

    @Test("a save's kinds stay with its content into the history; a save of no stated kind and a restore have none",
          arguments: StoreKind.allCases)
    func saveKinds(_ kind: StoreKind) async throws {
        try await Self.withStore(kind) { store, file, user in
            _ = try await store.saveContent(file.id, with: Self.blob("B"), lock: nil, savedBy: user.id, saveKinds: [.modifiedByUser, .autosave], seenModifiedTime: nil,
                                            keepVersions: 5, now: Date())
            _ = try await store.saveContent(file.id, with: Self.blob("C"), lock: nil, savedBy: user.id, saveKinds: [.exitSave], seenModifiedTime: nil,
                                            keepVersions: 5, now: Date())
            #expect(try await store.versions(of: file.id).map(\.saveKinds) == [[.exitSave], [.modifiedByUser, .autosave], nil])
            _ = try await store.saveContent(file.id, with: Self.blob("D"), lock: nil, savedBy: user.id, keepVersions: 5, now: Date())
            _ = try await store.restoreVersion(file.id, version: file.version, restoredBy: nil, keepVersions: 5, now: Date())
            #expect(try await store.versions(of: file.id).map(\.saveKinds) == [nil, nil, [.exitSave], [.modifiedByUser, .autosave], nil])
        }
    }

    @Test("a save based on an outdated modification time is refused in the same step and changes nothing; the current time saves",
          arguments: StoreKind.allCases)
    func seenModifiedTime(_ kind: StoreKind) async throws {
        try await Self.withStore(kind) { store, file, user in
            let stale = file.modifiedAt.addingTimeInterval(-60).formatted(.iso8601)
            await #expect(throws: WOPIStoreError.changedInStorage) {
                _ = try await store.saveContent(file.id, with: Self.blob("B"), lock: nil, savedBy: user.id, saveKinds: nil, seenModifiedTime: stale,
                                                keepVersions: 5, now: Date())
            }
            #expect(try await store.versions(of: file.id).map(\.sha256) == ["sha-A"])
            let saved = try await store.saveContent(file.id, with: Self.blob("C"), lock: nil, savedBy: user.id, saveKinds: nil,
                                                    seenModifiedTime: file.modifiedAt.formatted(.iso8601), keepVersions: 5, now: Date())
            #expect(saved.file.sha256 == "sha-C")
        }
    }

    @Test("a restore shares the kept body; pruning never reports a body still in use; a lock refuses the restore",
          arguments: StoreKind.allCases)
    func restoreSharesBodies(_ kind: StoreKind) async throws {
        try await Self.withStore(kind) { store, file, user in
            let a = file.blobKey
            let b = Self.blob("B")
            _ = try await store.saveContent(file.id, with: b, lock: nil, savedBy: user.id, keepVersions: 1, now: Date())
            let restored = try await store.restoreVersion(file.id, version: file.version, restoredBy: nil, keepVersions: 1, now: Date())
            #expect(restored.file.blobKey == a && restored.file.sha256 == "sha-A")
            #expect(restored.droppedBlobs.isEmpty, "A is current again, B is the kept version")
            // Saving again drops the kept version that shares nothing, and never the body now current.
            let next = try await store.saveContent(file.id, with: Self.blob("C"), lock: nil, savedBy: user.id, keepVersions: 1, now: Date())
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

    @Test("header limits: 8 KiB per field and 32 KiB per block by default")
    func headerLimits() {
        let limits = HeaderLimits.standard
        #expect(limits.problem([("Host", "x")]) == nil)
        #expect(limits.problem([("X-Big", String(repeating: "a", count: 8 * 1024))])?.contains("X-Big") == true)
        let many = (0..<5).map { ("X-\($0)", String(repeating: "b", count: 7 * 1024)) }
        #expect(limits.problem(many)?.contains("request headers") == true)
        #expect(HeaderLimits(maximumFieldSize: 0) == nil)
    }
}
