import NIOPosix
import WOPICore

/// Runs password checks (scrypt, 32 MiB and ~0.1 s each) off the threads that run requests, a few at a time.
///
/// On the request's own thread a burst of sign-in attempts would stall every WOPI request sharing
/// that thread and could claim 32 MiB per attempt; here they queue for one of
/// `concurrentChecks` slots on NIO's blocking thread pool (RFC 6819 §4.4.1.11).
actor PasswordChecker {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(concurrentChecks: Int = 2) {
        available = max(1, concurrentChecks)
    }

    /// Whether `password` matches `hash`; `false` when the thread pool is shutting down.
    func verify(_ password: String, against hash: PasswordHash) async -> Bool {
        await acquire()
        defer { release() }
        return (try? await NIOThreadPool.singleton.runIfActive { hash.verify(password) }) ?? false
    }

    private func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume() // the slot passes straight to the next in line
        }
    }
}
