import Foundation

/// Runs blocking `work` (a child process, a raw socket) on a Dispatch thread and waits for it without
/// holding one of the few threads of Swift's cooperative pool, which the suite's in-process servers
/// need to answer meanwhile.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
