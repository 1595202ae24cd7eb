import Foundation
import Logging
import PostgresNIO
import Testing
import WOPIHost
@testable import WOPIStorePostgres

/// The PostgreSQL pool's supervisor against a real server: a query its pool never ends does not hold its caller
/// once the pool is replaced.
@Suite struct SupervisedPostgresClientTests {
    @Test("a batch stranded in a pool that was replaced is answered StoreUnavailable (503), and the next query runs on the new pool",
          .timeLimit(.minutes(2)))
    func aStrandedQueryIsGivenUpWithItsPool() async throws {
        let url = try await StoreUnderTest.newPostgresDatabase()
        let client = PostgresClient.Configuration(host: url.host, port: url.port, username: url.user, password: url.password,
                                                  database: url.database, tls: .disable)
        let probe = PostgresConnection.Configuration(host: url.host, port: url.port, username: url.user, password: url.password,
                                                     database: url.database, tls: .disable)
        var timing = SupervisedPostgresClient.Timing()
        timing.progressLimit = .milliseconds(300)
        let connections = await SupervisedPostgresClient(configuration: client, probeConfiguration: probe, timing: timing,
                                                         logger: Logger(label: "test"))
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
}
