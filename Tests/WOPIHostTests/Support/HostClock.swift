import Foundation

/// A clock the tests move by hand, injected as ``WOPIHostConfiguration/now``.
///
/// Lock expiry and token expiry are both read from it, so a test can cross the 30-minute lock
/// lifetime or a token's expiry instantly instead of waiting.
final class HostClock: @unchecked Sendable {
    // NSLock rather than Mutex: Mutex needs macOS 15 and the package supports macOS 14.
    private let lock = NSLock()
    private var current: Date

    init(start: Date = Date()) { current = start }

    /// The current instant.
    func now() -> Date { lock.withLock { current } }

    /// Moves the clock forward.
    func advance(by interval: TimeInterval) { lock.withLock { current += interval } }

    /// Moves the clock forward to `interval` after `instant`, unless it is already later: a time the host took from
    /// the real clock (an import's, say) may be ahead of this one on a slow machine.
    func advance(by interval: TimeInterval, after instant: Date) {
        lock.withLock { current = max(current, instant) + interval }
    }
}
