import NIOConcurrencyHelpers

/// A lock that may be held across suspension points, granted in the order it was asked for.
final class AsyncLock: Sendable {
    private struct State {
        var isHeld = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let state = NIOLockedValueBox(State())

    func withLock<Result: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result) async throws -> Result {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        let acquired = state.withLockedValue { state in
            guard !state.isHeld else { return false }
            state.isHeld = true
            return true
        }
        guard !acquired else { return }
        await withCheckedContinuation { continuation in
            let granted = state.withLockedValue { state in
                guard !state.isHeld else {
                    state.waiting.append(continuation)
                    return false
                }
                state.isHeld = true
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, if any (it stays held), or frees it.
    private func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
