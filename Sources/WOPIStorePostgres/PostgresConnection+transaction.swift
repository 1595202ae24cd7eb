import Logging
import PostgresNIO
import WOPIHost

extension PostgresConnection {
    /// Throws `StoreUnavailable` when the connection has closed. PostgresNIO drops a statement written to a closed
    /// connection without ever answering it, so its caller would wait for good (a `ROLLBACK` after the server ended the
    /// connection, a statement on a connection its pool just shut down). Checked before each statement, which leaves
    /// only the instant between the check and the write.
    func ensureOpen() throws {
        if isClosed { throw StoreUnavailable("the connection to the database was closed") }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws; the error `body` threw
    /// reaches the caller unwrapped.
    ///
    /// Not PostgresNIO's `withTransaction`, which after a statement failed because the connection closed still writes
    /// `ROLLBACK` to it and so waits for good. A closed connection is not written to: the server has rolled back already.
    func inTransaction<Result>(logger: Logger, isolation: isolated (any Actor)? = #isolation,
                               _ body: (PostgresConnection) async throws -> sending Result) async throws -> sending Result {
        try ensureOpen()
        try await query("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(self)
        } catch {
            if !isClosed { _ = try? await query("ROLLBACK", logger: logger) }
            throw error
        }
        try ensureOpen()
        try await query("COMMIT", logger: logger)
        return value
    }
}
