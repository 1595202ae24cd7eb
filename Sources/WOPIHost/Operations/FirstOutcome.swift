import NIOConcurrencyHelpers

/// The outcome of `operation`, or `nil` when it has not finished within `limit` (it is cancelled, and its result
/// dropped). Unlike a task group, the caller does not wait for an operation that ignores cancellation: a call into
/// a store or a pool that does not answer is left to finish on its own.
package func firstOutcome<Value: Sendable>(within limit: Duration,
                                           _ operation: @escaping @Sendable () async throws -> Value) async -> Result<Value, any Error>? {
    await firstOutcome(before: { try? await Task.sleep(for: limit) }, operation)
}

/// The outcome of `operation`, or `nil` when `deadline` returns first (`operation` is then cancelled, and its result
/// dropped). `deadline` is cancelled once `operation` finishes, and must then return soon.
package func firstOutcome<Value: Sendable>(before deadline: @escaping @Sendable () async -> Void,
                                           _ operation: @escaping @Sendable () async throws -> Value) async -> Result<Value, any Error>? {
    let race = FirstOutcomeRace<Result<Value, any Error>>()
    return await withCheckedContinuation { continuation in
        race.set(continuation)
        let timer = Task {
            await deadline()
            race.expire()
        }
        race.set(work: Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await operation()) } catch { outcome = .failure(error) }
            race.finish(with: outcome)
            timer.cancel()
        })
    }
}

/// A continuation resumed by whichever comes first: the operation's outcome, or its deadline.
private final class FirstOutcomeRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value?, Never>?
        var work: Task<Void, Never>?
        var isLate = false
    }
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let state = NIOLockedValueBox(State())

    func set(_ continuation: CheckedContinuation<Value?, Never>) { state.withLockedValue { $0.continuation = continuation } }

    /// Keeps the operation's task, to cancel it if the deadline comes first (or at once if it came already).
    func set(work: Task<Void, Never>) {
        let isLate = state.withLockedValue { state -> Bool in
            if !state.isLate { state.work = work }
            return state.isLate
        }
        if isLate { work.cancel() }
    }

    func finish(with outcome: Value) {
        state.withLockedValue { $0.continuation.take() }?.resume(returning: outcome)
    }

    func expire() {
        let (continuation, work) = state.withLockedValue { state in
            state.isLate = true
            return (state.continuation.take(), state.work.take())
        }
        guard let continuation else { return }
        work?.cancel()
        continuation.resume(returning: nil)
    }
}
