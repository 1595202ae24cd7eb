import NIOConcurrencyHelpers

/// The outcome of `operation`, or `nil` when it has not finished within `limit` (it is cancelled, and its result
/// dropped). Unlike a task group, the caller does not wait for an operation that ignores cancellation: a call into
/// a store or a pool that does not answer is left to finish on its own.
package func firstOutcome<Value: Sendable>(within limit: Duration,
                                           _ operation: @escaping @Sendable () async throws -> Value) async -> Result<Value, any Error>? {
    let waiting = FirstOutcomeWaiting<Result<Value, any Error>?>()
    return await withCheckedContinuation { continuation in
        waiting.set(continuation)
        let work = Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await operation()) } catch { outcome = .failure(error) }
            waiting.take()?.resume(returning: outcome)
        }
        Task {
            try? await Task.sleep(for: limit)
            if let continuation = waiting.take() {
                work.cancel()
                continuation.resume(returning: nil)
            }
        }
    }
}

/// A continuation resumed by whichever of two tasks finishes first.
private final class FirstOutcomeWaiting<Value: Sendable>: Sendable {
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let continuation = NIOLockedValueBox<CheckedContinuation<Value, Never>?>(nil)
    func set(_ value: CheckedContinuation<Value, Never>) { continuation.withLockedValue { $0 = value } }
    func take() -> CheckedContinuation<Value, Never>? { continuation.withLockedValue { $0.take() } }
}
