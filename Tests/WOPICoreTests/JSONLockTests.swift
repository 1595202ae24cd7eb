import Foundation
import Testing
import WOPICore

/// Office for the web / Office Online Server lock ids shaped as JSON objects: compared by their
/// `S` (session) member, while plain locks stay compared byte for byte.
@Suite("JSON-shaped Office locks")
struct JSONLockTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The shape Office for the web sends: session, plus fields that change during one session.
    static let sessionLock = #"{"S":"b0a2cbb3-6ec5-4d1e-9b5a-1f1f2a6d6a01","F":0,"E":2,"M":"0","P":"abc"}"#
    /// The same session after Office changed the other fields (and the member order).
    static let sameSessionLater = #"{"P":"xyz","M":"1","E":3,"F":4,"S":"b0a2cbb3-6ec5-4d1e-9b5a-1f1f2a6d6a01"}"#
    /// Another editing session.
    static let otherSession = #"{"S":"7c9e6679-7425-40de-944b-e07fc1f90ae7","F":0,"E":2,"M":"0","P":"abc"}"#

    func lock(_ value: String) -> WOPILock { WOPILock(value)! }

    @Test("The session of a JSON lock is its S member; plain, malformed or S-less locks have none")
    func sessionIDs() {
        #expect(lock(Self.sessionLock).sessionID == "b0a2cbb3-6ec5-4d1e-9b5a-1f1f2a6d6a01")
        #expect(lock(#"{"L":"1234","F":4,"E":2,"S":"sess-1"}"#).sessionID == "sess-1")
        #expect(lock("plain-lock").sessionID == nil)
        #expect(lock(#"{"S":"unterminated""#).sessionID == nil)
        #expect(lock(#"{"F":0,"E":2}"#).sessionID == nil, "no S member")
        #expect(lock(#"{"S":42}"#).sessionID == nil, "S is not a string")
        #expect(lock(#"{"S":""}"#).sessionID == nil, "an empty session names nothing")
        #expect(lock(#"["S","x"]"#).sessionID == nil, "an array is not an object")
    }

    @Test("JSON locks match by session whatever their other fields; plain locks only exactly")
    func matching() {
        #expect(lock(Self.sessionLock).matches(lock(Self.sameSessionLater)))
        #expect(lock(Self.sameSessionLater).matches(lock(Self.sessionLock)))
        #expect(!lock(Self.sessionLock).matches(lock(Self.otherSession)))
        #expect(lock("abc").matches(lock("abc")))
        #expect(!lock("abc").matches(lock("ABC")), "plain locks are case-sensitive")
        #expect(!lock("abc").matches(lock(" abc")))
        // A plain lock that happens to equal a session id never matches the JSON lock naming it.
        #expect(!lock("b0a2cbb3-6ec5-4d1e-9b5a-1f1f2a6d6a01").matches(lock(Self.sessionLock)))
        // Two S-less JSON objects still compare exactly.
        #expect(!lock(#"{"F":0}"#).matches(lock(#"{"F":1}"#)))
        #expect(lock(#"{"F":0}"#).matches(lock(#"{"F":0}"#)))
    }

    @Test("Lock, RefreshLock, UnlockAndRelock with the same session are granted and store the lock just sent")
    func grantedStoresLatest() {
        let held = LockState(lock: lock(Self.sessionLock), expiresAt: now.addingTimeInterval(600))
        let later = lock(Self.sameSessionLater)
        let renewed = LockState(lock: later, expiresAt: now.addingTimeInterval(LockRules.lifetime))
        #expect(LockRules.evaluate(.lock(later), current: held, now: now) == .granted(newState: renewed))
        #expect(LockRules.evaluate(.refresh(later), current: held, now: now) == .granted(newState: renewed))
        #expect(LockRules.evaluate(.unlock(later), current: held, now: now) == .granted(newState: nil))
        let next = lock("next-plain-lock")
        #expect(LockRules.evaluate(.unlockAndRelock(old: later, new: next), current: held, now: now)
                == .granted(newState: LockState(lock: next, expiresAt: now.addingTimeInterval(LockRules.lifetime))))
        // PutFile and other writes keep the stored lock as it was.
        #expect(LockRules.evaluate(.putFile(later, currentSize: 10), current: held, now: now) == .granted(newState: held))
        #expect(LockRules.evaluate(.modify(later), current: held, now: now) == .granted(newState: held))
    }

    @Test("Another session is refused everywhere, and the refusal reports the stored lock exactly")
    func otherSessionRefused() {
        let held = LockState(lock: lock(Self.sessionLock), expiresAt: now.addingTimeInterval(600))
        let other = lock(Self.otherSession)
        let requests: [LockRules.Request] = [.lock(other), .refresh(other), .unlock(other), .unlockAndRelock(old: other, new: other),
                                            .putFile(other, currentSize: 10), .modify(other), .putFile(nil, currentSize: 10)]
        for request in requests {
            guard case .conflict(let current, _) = LockRules.evaluate(request, current: held, now: now) else {
                Issue.record("\(request) was granted against another session's lock")
                continue
            }
            #expect(current == Self.sessionLock)
        }
    }
}
