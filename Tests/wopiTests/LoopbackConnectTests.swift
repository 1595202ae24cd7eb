#if os(Linux)
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// The raw clients' connect under signals. The test process gets SIGCHLD whenever one of the many
/// processes the suite starts exits, and a signal during a blocking connect must not fail the test
/// that was connecting.
@Suite struct LoopbackConnectTests {
    /// Signals the no-op handler has taken.
    static let handled = Atomic<Int>(0)

    @Test("a connect still under way when a signal arrives waits for its outcome instead of failing with EINTR",
          .timeLimit(.minutes(4)))
    func connectSurvivesASignal() async throws {
        // listen(…, 0) queues one connection; with that one never accepted, the kernel drops the next
        // SYN, so the next connect stays under way until the queue has room.
        let listener = try LocalPort.listener(backlog: 0)
        defer { close(listener.descriptor) }
        let queued = try LocalPort.connection(to: listener.port)
        defer { close(queued) }

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in LoopbackConnectTests.handled.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART; with a send timeout connect ignores it anyway (signal(7))
        sigaction(SIGUSR2, &action, nil)

        let attempt = ConnectAttempt(port: listener.port)
        let started = Thread { attempt.run() }
        started.start()
        try await offPool {
            try Self.waitUntil("the second connect is under way") { Self.synSent(to: listener.port) }
            let before = Self.handled.load(ordering: .relaxed)
            guard let thread = attempt.thread.withLock({ $0 }) else { throw Failure("the connecting thread has no id") }
            pthread_kill(thread, SIGUSR2)
            try Self.waitUntil("the signal was handled") { Self.handled.load(ordering: .relaxed) > before }
        }

        // Makes room; the next retransmitted SYN (1, 3, 7, 15, 31, 63 s after the first) gets in.
        let accepted = accept(listener.descriptor, nil, nil)
        defer { close(accepted) }
        try await offPool { try Self.waitUntil("the connect returned", seconds: 180) { attempt.isDone } }
        #expect(attempt.outcome.withLock { $0 } == "connected")
    }

    /// Whether a socket of this process's network namespace is in SYN_SENT towards 127.0.0.1:`port`.
    static func synSent(to port: Int) -> Bool {
        let remote = String(format: "0100007F:%04X", port)
        return LocalPort.sockets().contains { $0.state == "02" && $0.remote == remote }
    }

    static func waitUntil(_ what: String, seconds: Double = 60, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw Failure("timed out waiting until \(what)") }
            usleep(5_000)
        }
    }

    /// `LocalPort.connection(to:)` on a thread of its own, so that a signal can be sent to that thread.
    final class ConnectAttempt: Sendable {
        let port: Int
        let thread = Mutex<pthread_t?>(nil)
        let outcome = Mutex<String?>(nil)
        var isDone: Bool { outcome.withLock { $0 != nil } }

        init(port: Int) { self.port = port }

        func run() {
            // A thread started from Swift's pool inherits Dispatch's mask, which blocks nearly every signal.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            thread.withLock { $0 = pthread_self() }
            do {
                let descriptor = try LocalPort.connection(to: port, timeout: 150)
                close(descriptor)
                outcome.withLock { $0 = "connected" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
#endif
