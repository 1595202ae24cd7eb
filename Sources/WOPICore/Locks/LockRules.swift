import Foundation

/// The WOPI lock rules as a pure function: given a file's current lock and a request, decide.
///
/// Storage runs ``evaluate(_:current:now:)`` inside one transaction and writes the result, which
/// is what makes every lock change a single compare-and-set. The rules follow
/// docs/rest/src/files/Lock.rst, RefreshLock.rst, Unlock.rst, UnlockAndRelock.rst, PutFile.rst:
/// locks are not tied to a user, expire after 30 minutes, and every refusal reports the current
/// lock (the empty string when there is none) so the host can send it as `X-WOPI-Lock` with 409.
///
/// Locks are compared with ``WOPILock/matches(_:)``: exactly, except that two JSON-shaped Office locks
/// match when they name the same session. A granted Lock, RefreshLock or UnlockAndRelock stores the
/// lock the client just sent, so the stored value (echoed in `X-WOPI-Lock` on a later 409 and by
/// GetLock) is always the client's latest; PutFile and other writes leave the stored lock unchanged.
public enum LockRules {
    /// How long a lock lasts without a refresh (Lock.rst: "30 minutes").
    public static let lifetime: TimeInterval = 30 * 60

    /// A request that reads or changes a file's lock.
    public enum Request: Sendable, Hashable {
        /// `LOCK`: take the lock, or refresh it when the same lock is already held.
        case lock(WOPILock)
        /// `REFRESH_LOCK`: extend the current lock.
        case refresh(WOPILock)
        /// `UNLOCK`: release the current lock.
        case unlock(WOPILock)
        /// `LOCK` with `X-WOPI-OldLock`: swap `old` for `new` atomically.
        case unlockAndRelock(old: WOPILock, new: WOPILock)
        /// `PUT` (PutFile): write with the given lock; an unlocked file may only be written while empty.
        case putFile(WOPILock?, currentSize: Int64)
        /// An operation that must not run while someone else holds the lock (rename, delete, overwrite).
        case modify(WOPILock?)
    }

    /// What the host should do.
    public enum Decision: Sendable, Hashable {
        /// Go ahead; store `newState` (`nil` means the file is unlocked afterwards).
        case granted(newState: LockState?)
        /// Refuse with 409, reporting `currentLock` (`""` when unlocked) and a reason for `X-WOPI-LockFailureReason`.
        case conflict(currentLock: String, reason: String)
    }

    /// Decides `request` against the file's `current` lock at `now`.
    public static func evaluate(_ request: Request, current: LockState?, now: Date) -> Decision {
        let held = current.flatMap { $0.isActive(at: now) ? $0 : nil }
        let fresh = { (lock: WOPILock) in LockState(lock: lock, expiresAt: now.addingTimeInterval(lifetime)) }
        let mismatch = { (reason: String) in Decision.conflict(currentLock: held?.lock.value ?? "", reason: reason) }

        switch request {
        case .lock(let lock):
            guard let held else { return .granted(newState: fresh(lock)) }
            return held.lock.matches(lock) ? .granted(newState: fresh(lock)) : mismatch("File is locked by another client")
        case .refresh(let lock):
            guard let held else { return mismatch("File is not locked") }
            return held.lock.matches(lock) ? .granted(newState: fresh(lock)) : mismatch("Lock mismatch")
        case .unlock(let lock):
            guard let held else { return mismatch("File is not locked") }
            return held.lock.matches(lock) ? .granted(newState: nil) : mismatch("Lock mismatch")
        case .unlockAndRelock(let old, let new):
            guard let held else { return mismatch("File is not locked") }
            return held.lock.matches(old) ? .granted(newState: fresh(new)) : mismatch("Lock mismatch")
        case .putFile(let lock, let currentSize):
            if let held {
                return lock.map(held.lock.matches) == true ? .granted(newState: held) : mismatch(lock == nil ? "File is locked" : "Lock mismatch")
            }
            // PutFile.rst: an unlocked file may be written only when it is 0 bytes (a new file).
            return currentSize == 0 ? .granted(newState: nil) : mismatch("File is not locked")
        case .modify(let lock):
            guard let held else { return .granted(newState: nil) }
            return lock.map(held.lock.matches) == true ? .granted(newState: held) : mismatch("File is locked")
        }
    }
}
