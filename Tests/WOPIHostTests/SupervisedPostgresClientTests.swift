import Foundation
import Logging
import PostgresNIO
import Testing
import WOPIHost
@testable import WOPIStorePostgres

/// The PostgreSQL pool's supervisor against a real server: a query its pool never ends does not hold its caller
/// once the pool is replaced, and a query the server is busy with is not mistaken for one.
@Suite struct SupervisedPostgresClientTests {
    @Test("a batch stranded in a pool that was replaced is answered StoreUnavailable (503), and the next query runs on the new pool",
          .timeLimit(.minutes(2)))
    func aStrandedQueryIsGivenUpWithItsPool() async throws {
        let url = try await StoreUnderTest.newPostgresDatabase()
        var timing = SupervisedPostgresClient.Timing()
        timing.progressLimit = .milliseconds(300)
        let connections = await SupervisedPostgresClient(configuration: url.poolConfiguration, probeConfiguration: url.connectionConfiguration,
                                                         timing: timing, logger: Logger(label: "test"))
        // What a query stranded in a pool looks like to its caller: it never ends, whatever happens to the pool or the task.
        await #expect(throws: StoreUnavailable.self) {
            try await connections.runUnlessAbandoned { _ -> Int in
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                return 0
            }
        }
        let rows = try await connections.run { client in try await client.query("SELECT 1", logger: Logger(label: "test")).collect().count }
        #expect(rows == 1)
        await connections.close()
    }

    @Test("a query waiting on a row lock past the progress limit is slow, not stuck: its pool is kept and it ends when the lock is released",
          .timeLimit(.minutes(2)))
    func aQueryTheServerWorksOnKeepsItsPool() async throws {
        let url = try await StoreUnderTest.newPostgresDatabase()
        let direct = url.connectionConfiguration
        let logger = Logger(label: "test")
        let holder = try await PostgresConnection.connect(configuration: direct, id: 1, logger: logger)
        _ = try await holder.query("CREATE TABLE waits (id integer PRIMARY KEY)", logger: logger).collect()
        _ = try await holder.query("INSERT INTO waits VALUES (1)", logger: logger).collect()
        _ = try await holder.query("BEGIN", logger: logger).collect()
        _ = try await holder.query("SELECT id FROM waits WHERE id = 1 FOR UPDATE", logger: logger).collect()

        let log = LogRecorder()
        var timing = SupervisedPostgresClient.Timing()
        timing.progressLimit = .milliseconds(300)
        timing.workingRecheck = .milliseconds(200)
        let connections = await SupervisedPostgresClient(configuration: url.poolConfiguration, probeConfiguration: direct, timing: timing,
                                                         logger: Logger(label: "test") { _ in log.handler })
        let update = Task {
            try await connections.run { client in
                try await client.query("UPDATE waits SET id = 2 WHERE id = 1", logger: Logger(label: "test")).collect().count
            }
        }
        // The lock is released once the supervisor has asked the server about the waiting query (or, wrongly, replaced its pool).
        while !log.lines.contains(where: { $0.message.contains("works on its statements") || $0.message.contains("replacing the pool") }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        _ = try await holder.query("ROLLBACK", logger: logger).collect()
        try await holder.close()
        _ = try await update.value
        #expect(!log.lines.contains { $0.message.contains("replacing the pool") }, "\(log.lines.map(\.message))")
        let line = try #require(log.lines.first { $0.message.contains("works on its statements") })
        #expect(line.metadata["statements"]?.contains("Lock") == true, "\(line.metadata)")
        let moved = try await connections.run { client in
            try await client.query("SELECT id FROM waits WHERE id = 2", logger: Logger(label: "test")).collect().count
        }
        #expect(moved == 1, "the update was made")
        await connections.close()
    }
}
