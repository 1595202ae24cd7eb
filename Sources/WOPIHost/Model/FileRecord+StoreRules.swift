import Foundation
import WOPICore

// The checks every store makes inside its transaction, after reading and locking the file's row:
// written once here, so no driver can drift from `LockRules` or `SaveTimestampRule`.
extension FileRecord {
    /// Throws ``WOPIStoreError/lockConflict(currentLock:reason:)`` unless `LockRules` lets `lock`'s holder
    /// rename, delete or overwrite this file now.
    public func requireModifiable(by lock: WOPILock?, now: Date) throws {
        try requireGranted(.modify(lock), now: now)
    }

    /// Throws unless a PutFile with `lock` may replace this file's content now: a lock conflict
    /// (``WOPIStoreError/lockConflict(currentLock:reason:)``), or ``WOPIStoreError/changedInStorage`` when the
    /// editor's `seenModifiedTime` (Collabora Online's `X-COOL-WOPI-Timestamp`) is not this file's time.
    public func requireSavable(by lock: WOPILock?, seenModifiedTime: String? = nil, now: Date) throws {
        try requireGranted(.putFile(lock, currentSize: size), now: now)
        if SaveTimestampRule.evaluate(header: seenModifiedTime, storedModifiedTime: modifiedAt) == .documentChanged {
            throw WOPIStoreError.changedInStorage
        }
    }

    private func requireGranted(_ request: LockRules.Request, now: Date) throws {
        if case .conflict(let current, let reason) = LockRules.evaluate(request, current: lock, now: now) {
            throw WOPIStoreError.lockConflict(currentLock: current, reason: reason)
        }
    }
}
