import Foundation

/// The lock a file holds, and until when.
public struct LockState: Sendable, Hashable {
    /// The current lock.
    public var lock: WOPILock
    /// When the lock lapses unless it is refreshed.
    public var expiresAt: Date

    /// Creates a lock state.
    public init(lock: WOPILock, expiresAt: Date) {
        self.lock = lock
        self.expiresAt = expiresAt
    }

    /// Whether the lock still holds at `now`. An expired lock is the same as no lock.
    public func isActive(at now: Date) -> Bool { expiresAt > now }
}
