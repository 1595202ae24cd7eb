import ArgumentParser
import Synchronization
import UnixSignals

/// Runs a command's work so that SIGINT, SIGTERM or a closed stdout/stderr stops it in an orderly way:
/// the work's task is cancelled, so it can undo what it made on a host (check-host's scratch file) before
/// the process ends. Work that must finish even then runs in an unstructured task, which cancellation does
/// not reach.
enum Interruption {
    /// Runs `work`; after a signal the process ends with 128 + the signal's number, after a closed output
    /// with status 1, both without a word.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let received = ReceivedSignal()
        let task = Task { try await work() }
        Console.onClosedOutput { task.cancel() }
        let signals = Task {
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                received.record(signal.rawValue)
                task.cancel()
                break
            }
        }
        defer {
            signals.cancel()
            Console.onClosedOutput(nil)
        }
        let result = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        if let signal = received.number { throw ExitCode(128 + signal) }
        if Console.outputClosed { throw ExitCode(1) }
        return try result.get()
    }

    /// The signal that stopped the work, set from the task that watches for signals.
    private final class ReceivedSignal: Sendable {
        private let value = Mutex<Int32?>(nil)

        func record(_ number: Int32) { value.withLock { $0 = number } }
        var number: Int32? { value.withLock { $0 } }
    }
}
