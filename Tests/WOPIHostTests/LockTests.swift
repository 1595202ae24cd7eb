import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Lock, GetLock, RefreshLock, Unlock, UnlockAndRelock and PutFile's lock rules
/// (docs/rest/src/files/Lock.rst and siblings, concepts.rst "Lock").
@Suite("Locks")
struct LockTests {
    @Test("Lock then GetLock returns the lock; Lock and Unlock carry X-WOPI-ItemVersion")
    func lockAndGetLock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let initial = try await host.getLock(doc.id, token: doc.token)
            expectStatus(initial, 200)
            #expect(initial.header("X-WOPI-Lock") == "", "GetLock on an unlocked file returns an empty X-WOPI-Lock")

            let locked = try await host.lock(doc.id, token: doc.token, "lock-A")
            expectStatus(locked, 200)
            #expect(locked.header("X-WOPI-ItemVersion") == doc.file.versionString)
            let current = try await host.getLock(doc.id, token: doc.token)
            expectStatus(current, 200)
            #expect(current.header("X-WOPI-Lock") == "lock-A")

            let unlocked = try await host.unlock(doc.id, token: doc.token, "lock-A")
            expectStatus(unlocked, 200)
            #expect(unlocked.header("X-WOPI-ItemVersion") == doc.file.versionString)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
        }
    }

    @Test("Lock with another lock while locked: 409 with the current lock")
    func lockConflict() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "owner"), 200)
            expectLockConflict(try await host.lock(doc.id, token: doc.token, "intruder"), currentLock: "owner")
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "owner")
        }
    }

    @Test("Locks are opaque: 1024 characters of any printable ASCII work, and are not tied to the user")
    func opaqueLongLock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let punctuation = #"{"S":"abc","F":4,"E":2,"M":"x y"} !#$%&'()*+,-./:;<=>?@[\]^_`{|}~"#
            let long = String((punctuation + String(repeating: "Zz9", count: 400)).prefix(1024))
            #expect(long.count == 1024)
            expectStatus(try await host.lock(doc.id, token: doc.token, long), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == long)
            // Another token (another session of the same user) can use the lock: locks belong to no one.
            let other = host.token(doc.user, .file(doc.file.id))
            expectStatus(try await host.unlock(doc.id, token: other, long), 200)
        }
    }

    @Test("Lock with the same lock refreshes it: the 30 minutes start again")
    func relockRefreshes() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "same"), 200)
            host.clock.advance(by: 20 * 60)
            expectStatus(try await host.lock(doc.id, token: doc.token, "same"), 200)
            host.clock.advance(by: 20 * 60) // 40 minutes after the first Lock, 20 after the second
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "same")
            expectLockConflict(try await host.lock(doc.id, token: doc.token, "other"), currentLock: "same")
        }
    }

    @Test("A lock expires after 30 minutes: still held at 29, gone at 31")
    func expiry() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "L"), 200)
            host.clock.advance(by: 29 * 60)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "L")
            expectLockConflict(try await host.lock(doc.id, token: doc.token, "M"), currentLock: "L")
            host.clock.advance(by: 2 * 60)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
            expectLockConflict(try await host.refreshLock(doc.id, token: doc.token, "L"), currentLock: "")
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, "L"), currentLock: "")
            expectStatus(try await host.lock(doc.id, token: doc.token, "M"), 200)
        }
    }

    @Test("RefreshLock extends a held lock, and is refused with 409 on a mismatch or an unlocked file")
    func refreshLock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectLockConflict(try await host.refreshLock(doc.id, token: doc.token, "bogus"), currentLock: "")
            expectStatus(try await host.lock(doc.id, token: doc.token, "R"), 200)
            host.clock.advance(by: 25 * 60)
            expectStatus(try await host.refreshLock(doc.id, token: doc.token, "R"), 200)
            host.clock.advance(by: 25 * 60)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "R")
            expectLockConflict(try await host.refreshLock(doc.id, token: doc.token, "S"), currentLock: "R")
        }
    }

    @Test("Unlock with a mismatched lock or on an unlocked file: 409 with the current lock")
    func unlockConflicts() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, "none"), currentLock: "")
            expectStatus(try await host.lock(doc.id, token: doc.token, "U"), 200)
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, "V"), currentLock: "U")
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "U")
        }
    }

    @Test("UnlockAndRelock swaps the lock when X-WOPI-OldLock matches, and answers 409 otherwise")
    func unlockAndRelock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectLockConflict(try await host.unlockAndRelock(doc.id, token: doc.token, old: "old", new: "new"), currentLock: "")
            expectStatus(try await host.lock(doc.id, token: doc.token, "old"), 200)
            expectLockConflict(try await host.unlockAndRelock(doc.id, token: doc.token, old: "wrong", new: "new"), currentLock: "old")
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: "old", new: "new"), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "new")
            expectLockConflict(try await host.unlockAndRelock(doc.id, token: doc.token, old: "old", new: "newer"), currentLock: "new")
        }
    }

    // MARK: PutFile

    @Test("PutFile with the lock replaces the content: new Version in X-WOPI-ItemVersion, Size and SHA256 updated")
    func putFileWithLock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Edit.docx", Data("version one".utf8))
            expectStatus(try await host.lock(doc.id, token: doc.token, "editor"), 200)
            let content = Data("version two, longer than the first".utf8)
            let put = try await host.putFile(doc.id, token: doc.token, lock: "editor", content)
            expectStatus(put, 200)
            let newVersion = try #require(put.header("X-WOPI-ItemVersion"))
            #expect(newVersion != doc.file.versionString)
            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(info["Version"]?.string == newVersion)
            #expect(info["Size"]?.int == Int64(content.count))
            #expect(info["SHA256"]?.string == sha256Base64(content))
            let get = try await host.getFile(doc.id, token: doc.token)
            #expect(get.body == content)
            #expect(get.header("X-WOPI-ItemVersion") == newVersion)
            // Still locked by the same lock after the write.
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "editor")
        }
    }

    @Test("PutFile refused on a locked file without the lock or with another: 409 with the lock, content unchanged")
    func putFileLockMismatch() async throws {
        try await TestHost.run { host in
            let original = Data("original".utf8)
            let doc = try await host.document("Guarded.docx", original)
            expectStatus(try await host.lock(doc.id, token: doc.token, "mine"), 200)
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: "yours", Data("x".utf8)), currentLock: "mine")
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: nil, Data("x".utf8)), currentLock: "mine")
            let get = try await host.getFile(doc.id, token: doc.token)
            #expect(get.body == original)
            #expect(get.header("X-WOPI-ItemVersion") == doc.file.versionString)
        }
    }

    @Test("PutFile on an unlocked non-empty file: 409 with an empty X-WOPI-Lock")
    func putFileUnlockedNonEmpty() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("NotLocked.docx", Data("content".utf8))
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: nil, Data("new".utf8)), currentLock: "")
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: "any", Data("new".utf8)), currentLock: "")
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("content".utf8))
        }
    }

    @Test("PutFile on an unlocked 0-byte file succeeds (the new-file flow)")
    func putFileUnlockedEmpty() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Empty.docx", Data())
            let content = Data("first content".utf8)
            let put = try await host.putFile(doc.id, token: doc.token, lock: nil, content)
            expectStatus(put, 200)
            #expect(put.header("X-WOPI-ItemVersion").map { $0 != doc.file.versionString } == true)
            #expect(try await host.getFile(doc.id, token: doc.token).body == content)
            // Now non-empty: the next unlocked write is refused.
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: nil, content), currentLock: "")
        }
    }

    @Test("PutFile after the lock expired is refused with an empty X-WOPI-Lock")
    func putFileExpiredLock() async throws {
        try await TestHost.run { host in
            let doc = try await host.document("Slow.docx", Data("a".utf8))
            expectStatus(try await host.lock(doc.id, token: doc.token, "slow"), 200)
            host.clock.advance(by: 31 * 60)
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: "slow", Data("b".utf8)), currentLock: "")
        }
    }
}
