import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The host's writer of the audit trail: what requests record reaches the store, in order, before the
/// host stops; events past the retention are pruned when it starts.
@Suite struct AuditTrailTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: StoreKind.allCases)
    func everythingRecordedIsWrittenBeforeRunReturnsAndOldEventsArePruned(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = try #require(storage.store as? any AuditStore)
            let day: TimeInterval = 86_400
            try await store.appendAuditEvents([AuditEvent(.lockTaken, time: now.addingTimeInterval(-91 * day), file: "old"),
                                               AuditEvent(.lockTaken, time: now.addingTimeInterval(-89 * day), file: "recent")])
            let clock = now
            let trail = AuditTrail(store: store, retention: 90 * day, now: { clock })
            let running = Task { await trail.run() }
            let recorded = (0..<1_234).map { AuditEvent(.fileSaved, time: now.addingTimeInterval(Double($0)), details: ["n": String($0)]) }
            for event in recorded { trail.record(event) }
            trail.finish()
            await running.value

            var listed: [AuditEvent] = []
            try await store.forEachAuditEvent(matching: AuditFilter()) { listed.append($0) }
            #expect(listed.first?.file == "recent", "the event past 90 days is gone, the one within them kept")
            #expect(Array(listed.dropFirst()) == recorded, "every recorded event, in order, before run() returned")
        }
    }

    /// A store that is down for its first `failures` appends.
    actor FlakyAuditStore: AuditStore {
        var failuresLeft: Int
        var stored: [AuditEvent] = []
        init(failures: Int) { failuresLeft = failures }

        func appendAuditEvents(_ events: [AuditEvent]) throws {
            guard failuresLeft == 0 else {
                failuresLeft -= 1
                throw CocoaError(.fileWriteUnknown)
            }
            stored += events
        }

        func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) -> [AuditEntry] { [] }
        func removeAuditEvents(before cutoff: Date) -> Int { 0 }
    }

    @Test func eventsRecordedWhileTheStoreIsDownAreWrittenWhenItIsBackWithoutNewEvents() async throws {
        let store = FlakyAuditStore(failures: 2)
        let trail = AuditTrail(store: store, retention: nil)
        let running = Task { await trail.run() }
        let recorded = (0..<3).map { AuditEvent(.lockBroken, time: now.addingTimeInterval(Double($0)), file: "f\($0)") }
        for event in recorded { trail.record(event) }
        // A hang guard, not a speed check: the retry waits 1 s twice, but the full parallel suite on 2 cores
        // can keep the trail's task waiting minutes for a thread.
        let deadline = Date().addingTimeInterval(600)
        while await store.stored.count < recorded.count, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(await store.stored == recorded, "written in order once the store answers, with nothing new recorded to prompt it")
        #expect(await store.failuresLeft == 0)
        trail.finish()
        await running.value
    }

    /// A store that refuses every append and says when it did.
    actor DownAuditStore: AuditStore {
        var appends = 0
        let refused: AsyncStream<Void>.Continuation
        init(refused: AsyncStream<Void>.Continuation) { self.refused = refused }

        func appendAuditEvents(_ events: [AuditEvent]) throws {
            appends += 1
            refused.yield()
            throw CocoaError(.fileWriteUnknown)
        }

        func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) -> [AuditEntry] { [] }
        func removeAuditEvents(before cutoff: Date) -> Int { 0 }
    }

    @Test func aTrailFinishedWhileItsStoreIsDownDoesNotAskTheStoreAgain() async throws {
        let (refusals, refused) = AsyncStream.makeStream(of: Void.self)
        let store = DownAuditStore(refused: refused)
        let trail = AuditTrail(store: store, retention: nil)
        let running = Task { await trail.run() }
        trail.record(AuditEvent(.lockBroken, time: now, file: "f"))
        var refusal = refusals.makeAsyncIterator()
        _ = await refusal.next()
        trail.finish()
        await running.value
        #expect(await store.appends == 1, "no second append, during the retry pause or at the end, once the trail is finished")
    }

    /// A store whose appends never answer, as a database whose address stopped answering (not refusing) does.
    actor SilentAuditStore: AuditStore {
        var appends = 0
        var prunes = 0
        /// Whether pruning does not answer either.
        let prunesAnswer: Bool
        private var callWaiters: [CheckedContinuation<Void, Never>] = []

        init(prunesAnswer: Bool = true) { self.prunesAnswer = prunesAnswer }

        func appendAuditEvents(_ events: [AuditEvent]) async throws {
            appends += 1
            await neverAnswer()
        }

        func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) -> [AuditEntry] { [] }

        func removeAuditEvents(before cutoff: Date) async -> Int {
            prunes += 1
            if !prunesAnswer { await neverAnswer() }
            return 0
        }

        /// Returns once some call is waiting for an answer.
        func untilCalled() async {
            guard appends == 0, prunes == 0 || prunesAnswer else { return }
            await withCheckedContinuation { callWaiters.append($0) }
        }

        /// Waits until the test ends; cancellation does not reach a call the trail stopped waiting for.
        private func neverAnswer() async {
            for waiter in callWaiters { waiter.resume() }
            callWaiters = []
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
        }
    }

    @Test("an append that began before the trail finishes, to a store that does not answer, is abandoned once the trail has been finishing for its limit",
          .timeLimit(.minutes(1)))
    func anAppendInFlightWhenTheTrailFinishesIsAbandoned() async throws {
        let store = SilentAuditStore()
        let trail = AuditTrail(store: store, retention: nil)
        let running = Task { await trail.run() }
        trail.record(AuditEvent(.lockBroken, time: now, file: "f"))
        await store.untilCalled()
        trail.finish()
        await running.value
        #expect(await store.appends == 1, "the event is logged as lost, not appended once more")
    }

    @Test("a trail that finishes while its first pruning does not answer ends", .timeLimit(.minutes(1)))
    func aTrailFinishedWhilePruningEnds() async throws {
        let store = SilentAuditStore(prunesAnswer: false)
        let trail = AuditTrail(store: store, retention: 86_400)
        let running = Task { await trail.run() }
        await store.untilCalled()
        trail.finish()
        await running.value
        #expect(await store.prunes == 1)
    }

    @Test("a trail that finishes while its store does not answer stops waiting for it within seconds, and ends",
          .timeLimit(.minutes(1)))
    func aTrailFinishedWhileItsStoreDoesNotAnswerEnds() async throws {
        let store = SilentAuditStore()
        let trail = AuditTrail(store: store, retention: nil)
        trail.record(AuditEvent(.lockBroken, time: now, file: "f"))
        // Finished before it runs: the only append is the final one.
        trail.finish()
        await trail.run()
        #expect(await store.appends == 1)
    }
}
