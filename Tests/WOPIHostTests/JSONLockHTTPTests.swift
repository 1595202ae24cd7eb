import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Office for the web's JSON-shaped lock ids over real HTTP: the same session with changed
/// fields is the same lock for Lock, RefreshLock, UnlockAndRelock, PutFile and Unlock; another session is
/// refused with 409 and the stored lock exactly as it was last sent.
@Suite("JSON-shaped locks over HTTP")
struct JSONLockHTTPTests {
    static func officeLock(session: String, _ f: Int, _ e: Int, _ m: String) -> String {
        #"{"S":"\#(session)","F":\#(f),"E":\#(e),"M":"\#(m)","P":"p-\#(f)"}"#
    }
    let session = "b0a2cbb3-6ec5-4d1e-9b5a-1f1f2a6d6a01"
    let intruder = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

    @Test("Lock, RefreshLock, PutFile, UnlockAndRelock and Unlock accept the same session with changed fields")
    func sameSessionAccepted() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let first = Self.officeLock(session: session, 0, 2, "0")
            let second = Self.officeLock(session: session, 4, 2, "1")
            let third = Self.officeLock(session: session, 4, 3, "2")
            expectStatus(try await host.lock(doc.id, token: doc.token, first), 200)

            // Lock again with the same session but other fields: a refresh, and the stored lock becomes the one just sent.
            expectStatus(try await host.lock(doc.id, token: doc.token, second), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == second)
            expectStatus(try await host.refreshLock(doc.id, token: doc.token, third), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == third)

            // PutFile with yet another variant of the session: written; the stored lock stays the last one set.
            let save = try await host.putFile(doc.id, token: doc.token, lock: first, Data("saved by Office".utf8))
            expectStatus(save, 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("saved by Office".utf8))
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == third)

            // Another session is refused everywhere, reporting the stored lock byte for byte, and changes nothing.
            let other = Self.officeLock(session: intruder, 4, 3, "2")
            expectLockConflict(try await host.lock(doc.id, token: doc.token, other), currentLock: third)
            expectLockConflict(try await host.refreshLock(doc.id, token: doc.token, other), currentLock: third)
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, other), currentLock: third)
            expectLockConflict(try await host.unlockAndRelock(doc.id, token: doc.token, old: other, new: "x"), currentLock: third)
            expectLockConflict(try await host.putFile(doc.id, token: doc.token, lock: other, Data("intruder".utf8)), currentLock: third)
            // A plain lock equal to the session id is not the JSON lock either.
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, session), currentLock: third)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("saved by Office".utf8))

            // UnlockAndRelock: the old lock matches by session; the new one is stored as sent.
            let relocked = Self.officeLock(session: intruder, 0, 2, "0")
            expectStatus(try await host.unlockAndRelock(doc.id, token: doc.token, old: second, new: relocked), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == relocked)
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, third), currentLock: relocked)

            // Unlock by the new holder's session with changed fields: unlocked.
            expectStatus(try await host.unlock(doc.id, token: doc.token, Self.officeLock(session: intruder, 9, 9, "9")), 200)
            #expect(try await host.getLock(doc.id, token: doc.token).header("X-WOPI-Lock") == "")
        }
    }

    @Test("Plain locks are still compared byte for byte")
    func plainLocksExact() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "lock-A"), 200)
            expectLockConflict(try await host.refreshLock(doc.id, token: doc.token, "LOCK-A"), currentLock: "lock-A")
            expectLockConflict(try await host.unlock(doc.id, token: doc.token, #"{"S":"lock-A"}"#), currentLock: "lock-A")
            expectStatus(try await host.unlock(doc.id, token: doc.token, "lock-A"), 200)
        }
    }
}
