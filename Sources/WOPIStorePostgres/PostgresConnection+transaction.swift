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
    /// `ROLLBACK` to it and so waits for good. See ``rollBack(after:logger:)``.
    func inTransaction<Result>(logger: Logger, isolation: isolated (any Actor)? = #isolation,
                               _ body: (PostgresConnection) async throws -> sending Result) async throws -> sending Result {
        try ensureOpen()
        try await query("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(self)
        } catch {
            await rollBack(after: error, logger: logger)
            throw error
        }
        try ensureOpen()
        try await query("COMMIT", logger: logger)
        return value
    }

    /// How long a `ROLLBACK` may take before the connection is closed instead, which rolls back as well.
    static let rollbackLimit = Duration.seconds(2)

    /// Ends the transaction `error` interrupted, without waiting for good.
    ///
    /// A connection that has closed, or whose server ended the session (a FATAL error: an administrator or a restart
    /// ended it), has rolled back already: it is closed, and given back to the pool closed, so that no one writes to it
    /// while it closes. Otherwise `ROLLBACK` is sent, and if it is not answered within ``rollbackLimit`` (written in the
    /// instant the connection closed) the connection is closed.
    func rollBack(after error: any Error, logger: Logger) async {
        if isClosed || Self.endsSession(error) {
            try? await close()
            return
        }
        let answered = await firstOutcome(within: Self.rollbackLimit) { _ = try await self.query("ROLLBACK", logger: logger) }
        if answered == nil {
            logger.warning("ROLLBACK was not answered within \(Self.rollbackLimit); closing the connection, which rolls back too")
            try? await close()
        }
    }

    /// Whether the server ended the session with `error`, or the connection was lost with it.
    static func endsSession(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .server: return ["FATAL", "PANIC"].contains(error.serverInfo?[.severity] ?? error.serverInfo?[.localizedSeverity] ?? "")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        default: return false
        }
    }
}
