import Testing
import WOPIHost

/// The one-time event the audit trail and the PostgreSQL supervisor wait on.
@Suite struct LatchTests {
    @Test("waiters from before and after the latch opens all go, and a cancelled waiter goes at once", .timeLimit(.minutes(1)))
    func waitersGoWhenOpenOrCancelled() async {
        let latch = Latch()
        #expect(!latch.isOpen)
        let cancelled = Task { await latch.wait() }
        cancelled.cancel()
        await cancelled.value
        #expect(!latch.isOpen, "a cancelled wait opens nothing")

        let early = (0..<4).map { _ in Task { await latch.wait() } }
        latch.open()
        for waiter in early { await waiter.value }
        await latch.wait()
        #expect(latch.isOpen)
    }
}
