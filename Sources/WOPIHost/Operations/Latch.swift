import NIOConcurrencyHelpers

/// Something that happens once (a trail finishing, a pool shut down), for any number of tasks to wait on.
package final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Whether ``open()`` was called.
    package var isOpen: Bool { state.withLockedValue { $0.isOpen } }

    /// Lets every waiter go, now and from now on.
    package func open() {
        let waiters = state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open, or when the calling task is cancelled.
    package func wait() async {
        let waiter = state.withLockedValue { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isWaiting = state.withLockedValue { state in
                    guard !state.isOpen, !Task.isCancelled else { return false }
                    state.waiters[waiter] = continuation
                    return true
                }
                if !isWaiting { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: waiter) }?.resume()
        }
    }
}
