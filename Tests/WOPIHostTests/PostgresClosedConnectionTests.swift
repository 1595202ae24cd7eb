import Foundation
import Logging
import PostgresNIO
import Testing
import WOPIHost
import WOPIStoreSQL
@testable import WOPIStorePostgres

/// A statement PostgresNIO writes to a connection that has closed is never answered. The store does not write to one:
/// a statement, and a transaction whose connection the server ends, fail with `StoreUnavailable` (503) at once.
@Suite struct PostgresClosedConnectionTests {
    /// Long enough for any answer from a local server; a statement left unanswered exceeds it.
    static let answerLimit = Duration.seconds(5)

    @Test("a statement on a connection that has closed fails with StoreUnavailable instead of waiting for good",
          .timeLimit(.minutes(1)))
    func aStatementOnAClosedConnectionFails() async throws {
        let url = try await StoreUnderTest.newPostgresDatabase()
        let logger = Logger(label: "test")
        let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 1, logger: logger)
        try await connection.close()
        let outcome = await firstOutcome(within: Self.answerLimit) {
            try await PostgresSession(connection: connection, logger: logger).rows("SELECT 1").count
        }
        let answered = try #require(outcome, "the statement was still waiting after \(Self.answerLimit)")
        #expect(throws: StoreUnavailable.self) { try answered.get() }
    }

    @Test("a transaction whose connection the server ends mid-way fails with StoreUnavailable, each of many times, and the store goes on",
          .timeLimit(.minutes(2)))
    func aTransactionWhoseConnectionEndsFails() async throws {
        let url = try await StoreUnderTest.newPostgresDatabase()
        let store = try await PostgresStore.connect(to: url, maximumConnections: 2)
        let logger = Logger(label: "test")
        // Each time, the server process behind the connection ends itself, as when an administrator or a restart ends it.
        for attempt in 1...10 {
            let outcome = await firstOutcome(within: Self.answerLimit) {
                try await store.transaction { (connection: PostgresConnection) in
                    try await connection.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: logger)
                }
            }
            let answered = try #require(outcome, "attempt \(attempt): the transaction was still waiting after \(Self.answerLimit)")
            #expect(throws: StoreUnavailable.self, "attempt \(attempt)") { try answered.get() }
        }
        // The pool goes on with fresh connections (the supervisor answers 503 while it checks the server).
        var rows: [SQLRow] = []
        for _ in 0..<50 where rows.isEmpty {
            rows = (try? await store.read { try await $0.rows("SELECT 1") }) ?? []
            if rows.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(rows.count == 1)
        await store.close()
    }
}
