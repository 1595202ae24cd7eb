import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import WOPIStorePostgres

/// The PostgreSQL store's batching of concurrent statements: who goes in which batch, and that every
/// call hears its own answer or its batch's error.
@Suite("Statement batcher")
struct StatementBatcherTests {
    /// A stand-in statement: records every batch, answers each input doubled, and holds a batch until released
    /// when asked to, so calls can pile up behind it.
    final class Recorder: Sendable {
        private struct State {
            var batches: [[Int]] = []
            var inFlight = 0
            var mostInFlight = 0
            var held: [CheckedContinuation<Void, Never>] = []
            var holding = true
        }
        // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
        private let state = NIOLockedValueBox(State())
        let failing: Set<Int>

        init(failing: Set<Int> = []) { self.failing = failing }

        var batches: [[Int]] { state.withLockedValue { $0.batches } }
        var mostInFlight: Int { state.withLockedValue { $0.mostInFlight } }
        var heldCount: Int { state.withLockedValue { $0.held.count } }

        /// Lets every held batch and every later one through.
        func release() {
            let held = state.withLockedValue { state in
                state.holding = false
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }

        func execute(_ inputs: [Int]) async throws -> [Int] {
            state.withLockedValue { state in
                state.batches.append(inputs)
                state.inFlight += 1
                state.mostInFlight = max(state.mostInFlight, state.inFlight)
            }
            await withCheckedContinuation { continuation in
                let holds = state.withLockedValue { state in
                    if state.holding { state.held.append(continuation) }
                    return state.holding
                }
                if !holds { continuation.resume() }
            }
            state.withLockedValue { $0.inFlight -= 1 }
            struct Refused: Error {}
            if !failing.isDisjoint(with: inputs) { throw Refused() }
            return inputs.map { $0 * 2 }
        }
    }

    /// Waits until `condition` holds; a hang guard, not a pause: the whole suite on two cores can keep a task
    /// waiting minutes for a thread.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "the condition never held")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("Calls that arrive while a batch is in flight go out together in the next one, each with its own answer")
    func callsWaitingBehindABatchShareTheNext() async throws {
        let recorder = Recorder()
        let batcher = StatementBatcher<Int, Int>(limit: 1) { try await recorder.execute($0) }
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            group.addTask { (0, try await batcher.run(0)) }
            try await eventually { recorder.heldCount == 1 }
            for input in 1...10 { group.addTask { (input, try await batcher.run(input)) } }
            try await eventually { batcher.waitingCount == 10 }
            recorder.release()
            var answers: [Int: Int] = [:]
            for try await (input, output) in group { answers[input] = output }
            #expect(answers == Dictionary(uniqueKeysWithValues: (0...10).map { ($0, $0 * 2) }))
        }
        let batches = recorder.batches
        #expect(batches.count == 2)
        #expect(batches.first == [0])
        #expect(Set(batches.last ?? []) == Set(1...10) && batches.last?.count == 10)
        #expect(batcher.waitingCount == 0)
    }

    @Test("A batch carries at most maximumBatch calls; the rest follow in later batches")
    func batchesAreCapped() async throws {
        let recorder = Recorder()
        let batcher = StatementBatcher<Int, Int>(limit: 1, maximumBatch: 4) { try await recorder.execute($0) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask { try await batcher.run(0) }
            try await eventually { recorder.heldCount == 1 }
            for input in 1...10 { group.addTask { try await batcher.run(input) } }
            try await eventually { batcher.waitingCount == 10 }
            recorder.release()
            var outputs: [Int] = []
            for try await output in group { outputs.append(output) }
            #expect(outputs.sorted() == (0...10).map { $0 * 2 })
        }
        let batches = recorder.batches
        #expect(batches.allSatisfy { $0.count <= 4 })
        #expect(batches.map(\.count) == [1, 4, 4, 2])
        #expect(batches.flatMap { $0 }.sorted() == Array(0...10))
    }

    @Test("At most `limit` batches are in flight, and calls beyond them wait")
    func limitBoundsBatchesInFlight() async throws {
        let recorder = Recorder()
        let batcher = StatementBatcher<Int, Int>(limit: 2) { try await recorder.execute($0) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask { try await batcher.run(0) }
            group.addTask { try await batcher.run(1) }
            try await eventually { recorder.heldCount == 2 }
            for input in 2...20 { group.addTask { try await batcher.run(input) } }
            try await eventually { batcher.waitingCount == 19 }
            #expect(recorder.heldCount == 2, "a third batch went out while two were in flight")
            recorder.release()
            var outputs: [Int] = []
            for try await output in group { outputs.append(output) }
            #expect(outputs.sorted() == (0...20).map { $0 * 2 })
        }
        #expect(recorder.mostInFlight == 2)
        #expect(recorder.batches.flatMap { $0 }.sorted() == Array(0...20))
    }

    @Test("A failing batch fails exactly its calls; the calls after it are answered")
    func aFailureStaysInItsBatch() async throws {
        let recorder = Recorder(failing: [3])
        let batcher = StatementBatcher<Int, Int>(limit: 1, maximumBatch: 4) { try await recorder.execute($0) }
        let results = await withTaskGroup(of: (Int, Int?).self) { group in
            group.addTask { (0, try? await batcher.run(0)) }
            try? await eventually { recorder.heldCount == 1 }
            for input in 1...8 { group.addTask { (input, try? await batcher.run(input)) } }
            try? await eventually { batcher.waitingCount == 8 }
            recorder.release()
            var results: [Int: Int?] = [:]
            for await (input, output) in group { results[input] = output }
            return results
        }
        let failedBatch = try #require(recorder.batches.first { $0.contains(3) })
        for input in 0...8 {
            let expected: Int? = failedBatch.contains(input) ? nil : input * 2
            #expect(results[input] == expected, "input \(input)")
        }
        #expect(failedBatch.count > 1, "the failure reached the other calls of its batch")
        #expect(batcher.waitingCount == 0)
    }
}
