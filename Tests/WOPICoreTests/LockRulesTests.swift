import Foundation
import Testing
import WOPICore

@Suite("Lock rules")
struct LockRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let a = WOPILock("lock-A")!
    let b = WOPILock("lock-B")!

    func held(_ lock: WOPILock, minutesLeft: Double = 10) -> LockState {
        LockState(lock: lock, expiresAt: now.addingTimeInterval(minutesLeft * 60))
    }

    func expectConflict(_ decision: LockRules.Decision, current: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .conflict(let reported, let reason) = decision else {
            Issue.record("expected a conflict, got \(decision)", sourceLocation: sourceLocation)
            return
        }
        #expect(reported == current, sourceLocation: sourceLocation)
        #expect(!reason.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("Lock on an unlocked file takes it for 30 minutes")
    func lockUnlocked() {
        #expect(LockRules.evaluate(.lock(a), current: nil, now: now) == .granted(newState: LockState(lock: a, expiresAt: now.addingTimeInterval(1800))))
    }

    @Test("Lock with the same lock refreshes; with another lock conflicts and reports the holder")
    func lockHeld() {
        #expect(LockRules.evaluate(.lock(a), current: held(a, minutesLeft: 1), now: now)
                == .granted(newState: LockState(lock: a, expiresAt: now.addingTimeInterval(1800))))
        expectConflict(LockRules.evaluate(.lock(b), current: held(a), now: now), current: "lock-A")
    }

    @Test("An expired lock is no lock at all")
    func expiry() {
        let expired = held(a, minutesLeft: -1)
        #expect(LockRules.evaluate(.lock(b), current: expired, now: now) == .granted(newState: LockState(lock: b, expiresAt: now.addingTimeInterval(1800))))
        expectConflict(LockRules.evaluate(.unlock(a), current: expired, now: now), current: "")
        expectConflict(LockRules.evaluate(.refresh(a), current: expired, now: now), current: "")
        #expect(LockRules.evaluate(.putFile(a, currentSize: 10), current: expired, now: now) == .conflict(currentLock: "", reason: "File is not locked"))
    }

    @Test("Refresh and Unlock need the current lock")
    func refreshAndUnlock() {
        #expect(LockRules.evaluate(.refresh(a), current: held(a, minutesLeft: 2), now: now)
                == .granted(newState: LockState(lock: a, expiresAt: now.addingTimeInterval(1800))))
        expectConflict(LockRules.evaluate(.refresh(b), current: held(a), now: now), current: "lock-A")
        expectConflict(LockRules.evaluate(.refresh(a), current: nil, now: now), current: "")
        #expect(LockRules.evaluate(.unlock(a), current: held(a), now: now) == .granted(newState: nil))
        expectConflict(LockRules.evaluate(.unlock(b), current: held(a), now: now), current: "lock-A")
    }

    @Test("UnlockAndRelock swaps only from the current lock")
    func unlockAndRelock() {
        #expect(LockRules.evaluate(.unlockAndRelock(old: a, new: b), current: held(a), now: now)
                == .granted(newState: LockState(lock: b, expiresAt: now.addingTimeInterval(1800))))
        expectConflict(LockRules.evaluate(.unlockAndRelock(old: b, new: a), current: held(a), now: now), current: "lock-A")
        expectConflict(LockRules.evaluate(.unlockAndRelock(old: a, new: b), current: nil, now: now), current: "")
    }

    @Test("PutFile: with the lock; unlocked only while the file is empty")
    func putFile() {
        #expect(LockRules.evaluate(.putFile(a, currentSize: 5), current: held(a), now: now) == .granted(newState: held(a)))
        expectConflict(LockRules.evaluate(.putFile(b, currentSize: 5), current: held(a), now: now), current: "lock-A")
        expectConflict(LockRules.evaluate(.putFile(nil, currentSize: 5), current: held(a), now: now), current: "lock-A")
        #expect(LockRules.evaluate(.putFile(nil, currentSize: 0), current: nil, now: now) == .granted(newState: nil))
        expectConflict(LockRules.evaluate(.putFile(nil, currentSize: 1), current: nil, now: now), current: "")
    }

    @Test("Rename, delete and overwrite are refused while someone else holds the lock")
    func modify() {
        #expect(LockRules.evaluate(.modify(nil), current: nil, now: now) == .granted(newState: nil))
        #expect(LockRules.evaluate(.modify(a), current: held(a), now: now) == .granted(newState: held(a)))
        expectConflict(LockRules.evaluate(.modify(nil), current: held(a), now: now), current: "lock-A")
        expectConflict(LockRules.evaluate(.modify(b), current: held(a), now: now), current: "lock-A")
    }

    @Test("Locks are 1 to 1024 printable ASCII characters")
    func lockValidation() {
        #expect(WOPILock(String(repeating: "x", count: 1024)) != nil)
        #expect(WOPILock(String(repeating: "x", count: 1025)) == nil)
        #expect(WOPILock("") == nil)
        #expect(WOPILock("naïve") == nil)
        #expect(WOPILock("line\nbreak") == nil)
        #expect(WOPILock(#"{"S":"ab","F":4}"#)?.value == #"{"S":"ab","F":4}"#)
    }
}
