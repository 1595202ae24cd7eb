import Foundation
import WOPIHost
import Logging
import NIOSSL
import PostgresNIO
import WOPICore
import WOPIStoreSQL

/// A `WOPIStore` on PostgreSQL, for several hosts sharing one database.
///
/// Every change that reads and then writes (saves, renames, one-time codes) runs in one transaction
/// that first takes the row's lock (`SELECT … FOR UPDATE`), so two hosts racing on one file serialize
/// in the database and exactly one compare-and-set wins; a lock change is a compare-and-set in one
/// statement, retried on what won. The statements every WOPI request runs are prepared once per
/// connection, and the file lookups and lock changes of requests that arrive together share one
/// statement. Nothing is cached in the process: each request sees what the last host committed.
public final class PostgresStore: WOPIStore {
    /// The connection pool, supervised: a database that goes away gets `StoreUnavailable` within about a second.
    let connections: SupervisedPostgresClient
    let logger: Logger
    /// `fileAccess(_:by:)`, which every WOPI request makes first, in batches of the calls that arrive together.
    let fileAccesses: StatementBatcher<(file: String, user: String), SQLRow?>
    /// Lock compare-and-sets, in batches of the calls that arrive together: one statement and one commit each.
    let lockChanges: StatementBatcher<PostgresStatements.SetLocks.Change, SQLRow?>

    /// The pool in use, for tests that tamper with the database behind the store's back.
    var client: PostgresClient {
        get throws {
            guard let client = connections.client else { throw StoreUnavailable("the database is unavailable") }
            return client
        }
    }

    /// Connects to `url`, applies missing migrations, and starts the connection pool.
    ///
    /// Throws ``PostgresStoreError/unreachable(_:reason:)`` when the server cannot be reached or refuses
    /// the sign-in, and `StoreSchemaError/newerThanBinary(found:supported:)` when a newer WOPIKit has
    /// migrated the database. Call ``close()`` when done.
    ///
    /// Once connected, a database that stops answering makes every call throw `StoreUnavailable` within
    /// about a second, and at once after that, until it answers again; no restart is needed.
    public static func connect(to url: PostgresDatabaseURL, maximumConnections: Int = defaultConnections, logger: Logger = Logger(label: "wopi.postgres")) async throws -> PostgresStore {
        let tls = try Self.tls(url.tls)
        var connectionConfiguration: PostgresConnection.Configuration
        var clientConfiguration: PostgresClient.Configuration
        if let socket = url.socketPath {
            connectionConfiguration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
            clientConfiguration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } else {
            connectionConfiguration = .init(host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                                            tls: tls.connection)
            clientConfiguration = .init(host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                                        tls: tls.client)
        }
        connectionConfiguration.options.connectTimeout = .seconds(10)
        clientConfiguration.options.maximumConnections = maximumConnections
        // Every connection stays open and none is pinged: on each return of a connection the pool otherwise arms an
        // idle timer and a keep-alive timer, which cost more than a lookup. The supervisor notices a broken connection.
        clientConfiguration.options.minimumConnections = maximumConnections
        clientConfiguration.options.keepAliveBehavior = nil
        // Batched statements take arrays, and PostgreSQL would plan them again for each execution (0.2 ms) rather
        // than use the plan it prepared. (PostgreSQL 12 or newer.)
        clientConfiguration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
        // Migrate on one connection first: it also proves the URL works before the pool starts retrying.
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: connectionConfiguration, id: 0, logger: logger)
        } catch {
            throw PostgresStoreError.unreachable(url, reason: Self.reason(error))
        }
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            if error is StoreSchemaError { throw error }
            throw PostgresStoreError.migrationFailed(url, reason: Self.reason(error))
        }
        let connections = await SupervisedPostgresClient(configuration: clientConfiguration, probeConfiguration: connectionConfiguration,
                                                         logger: logger)
        return PostgresStore(connections: connections, logger: logger)
    }

    /// Connections each host keeps open: four per core, at most 16. With lookups and lock changes batched, more only
    /// wait in the database (measured on 2 cores: 8 beat 4 and 16).
    public static var defaultConnections: Int { min(16, 4 * System.coreCount) }

    /// Batches of one kind in flight at once: one per two cores, since the host and a local database share
    /// them (measured on 2 cores: one batch in flight beat two by 5–10 %).
    static var batchesInFlight: Int { max(1, System.coreCount / 2) }

    private init(connections: SupervisedPostgresClient, logger: Logger) {
        self.connections = connections
        self.logger = logger
        // Every request waits on these two: a batch stranded in a pool that was shut down must not hold the rest.
        fileAccesses = StatementBatcher(limit: Self.batchesInFlight) { pairs in
            let statement = PostgresStatements.FileAccess(fileIDs: pairs.map(\.file), userIDs: pairs.map(\.user))
            return try Self.answers(to: pairs.count, from: await Self.batchRows(of: statement, on: connections, logger: logger))
        }
        lockChanges = StatementBatcher(limit: Self.batchesInFlight) { changes in
            let statement = PostgresStatements.SetLocks(changes: changes)
            return try Self.answers(to: changes.count, from: await Self.batchRows(of: statement, on: connections, logger: logger))
        }
    }

    /// One answer per call of a batch from the rows of its statement, each row naming its call's position (from 1)
    /// in its first column; a call without a row gets `nil`.
    private static func answers(to calls: Int, from rows: [SQLRow]) throws -> [SQLRow?] {
        var answers = [SQLRow?](repeating: nil, count: calls)
        for row in rows {
            let position = try row.integer(0)
            if (1...Int64(calls)).contains(position) { answers[Int(position) - 1] = row }
        }
        return answers
    }

    /// Closes every connection. Queries after this fail.
    ///
    /// Waits for the pool at most half a second: a pool still connecting to a database host that does not answer
    /// would otherwise hold the caller until its connect timeout (10 s); it then finishes in the background.
    public func close() async {
        await connections.close()
    }

    // MARK: Per-request steps

    /// Applies a lock request atomically and returns the decision with the file as it is afterwards.
    public func updateLock(_ id: ResourceID, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        guard let row = try await first(PostgresStatements.File(id: id.rawValue)) else { throw WOPIStoreError.notFound }
        return try await updateLock(try Self.file(row), request: request, now: now)
    }

    /// Applies a lock request atomically, deciding first on `file` as the caller read it.
    public func updateLock(_ file: FileRecord, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        // A compare-and-set instead of a transaction: decide on the row as read, and write only if the lock is still that
        // one. A concurrent change makes the write match no row, and the request is decided again on what won; so a race
        // has exactly one winner, in one prepared round trip after the read instead of four (BEGIN, SELECT … FOR UPDATE,
        // UPDATE, COMMIT). The caller's read counts as the first one.
        var file = file
        // The lock columns as stored: from the caller's record at first, then from each row read again (so a row
        // whose lock columns do not make a lock still matches, and the loop ends).
        var stored = (value: file.lock?.lock.value, expiry: file.lock?.expiresAt.timeIntervalSince1970)
        while true {
            let decision = LockRules.evaluate(request, current: file.lock, now: now)
            guard case .granted(let newState) = decision, newState != file.lock else { return (decision, file) }
            let change = PostgresStatements.SetLocks.Change(id: file.id.rawValue, newValue: newState?.lock.value,
                                                            newExpiry: newState?.expiresAt.timeIntervalSince1970, oldValue: stored.value,
                                                            oldExpiry: stored.expiry)
            if let updated = try await lockChanges.run(change) { return (decision, try Self.file(updated, from: 1)) }
            guard let row = try await first(PostgresStatements.File(id: file.id.rawValue)) else { throw WOPIStoreError.notFound }
            file = try Self.file(row)
            stored = (try row.optionalText(9), try row.optionalDate(10)?.timeIntervalSince1970)
        }
    }

    /// The caller, the file, the caller's role on the file and on its folder, and the folder's name — in one step.
    public func fileAccess(_ fileID: ResourceID, by userID: ResourceID) async throws -> FileAccess? {
        // One prepared statement, shared with the calls that arrive at the same time: the user, the file with its folder's
        // name, and for anyone but the owner the best share on the folder chain and the share on the file itself.
        // Columns: the position, the user (1–6), the file (7–17), its folder's name and the two share roles.
        guard let row = try await fileAccesses.run((fileID.rawValue, userID.rawValue)) else { return nil }
        let user = try Self.user(row, from: 1)
        guard try row.optionalText(7) != nil else { return FileAccess(user: user, file: nil, role: nil, containerRole: nil, containerName: "") }
        return FileAccess(user: user, file: try Self.file(row, from: 7), containerName: try row.optionalText(18) ?? "",
                          folderShare: try row.optionalText(19).flatMap(AccessRole.init(rawValue:)),
                          fileShare: try row.optionalText(20).flatMap(AccessRole.init(rawValue:)))
    }

    /// Answers within 800 ms (`readinessLimit`): a balancer's probe must not wait for the pool to notice an outage.
    public func checkReadiness() async throws {
        let outcome = await firstOutcome(within: Self.readinessLimit) {
            _ = try await self.first("SELECT 1 FROM wopikit_schema_migrations LIMIT 1")
        }
        switch outcome {
        case .success: return
        case .failure(let error): throw error
        case nil: throw StoreUnavailable("no answer within \(Self.readinessLimit)")
        }
    }

    /// How long ``checkReadiness()`` waits for the database.
    static let readinessLimit = Duration.milliseconds(800)

    // MARK: Helpers

    /// Runs `body` in one transaction on one connection of the pool, committed when it returns and rolled back when it
    /// throws; the error `body` threw (a `WOPIStoreError`, a unique violation) reaches the caller unwrapped.
    func transaction<Result>(isolation: isolated (any Actor)? = #isolation,
                             _ body: (PostgresConnection) async throws -> sending Result) async throws -> sending Result {
        try await connections.run(isolation: isolation) { client in
            try await client.withConnection(isolation: isolation) { connection in
                try await connection.inTransaction(logger: logger, isolation: isolation, body)
            }
        }
    }

    /// The first row of a prepared statement (``PostgresStatements``), if any.
    func first<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Statement.Row? where Statement.Row: Sendable {
        try await Self.rows(of: statement, on: connections, logger: logger).first
    }

    /// Every row of a prepared statement (``PostgresStatements``).
    static func rows<Statement: PostgresPreparedStatement>(of statement: Statement, on connections: SupervisedPostgresClient,
                                                           logger: Logger) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await connections.run { client in try await collect(statement, on: client, logger: logger) }
    }

    /// The rows of a batched statement, given up on once its pool has been shut down (``SupervisedPostgresClient/runUnlessAbandoned(_:)``).
    static func batchRows<Statement: PostgresPreparedStatement & Sendable>(of statement: Statement, on connections: SupervisedPostgresClient,
                                                                           logger: Logger) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await connections.runUnlessAbandoned { client in try await collect(statement, on: client, logger: logger) }
    }

    /// Every row of `statement`, run on `client`. (The pool's `execute` gives the connection back as soon as the last row
    /// arrives, before this task resumes; a lease held to the end of a closure costs about a tenth of the lookups.)
    private static func collect<Statement: PostgresPreparedStatement>(_ statement: Statement, on client: PostgresClient,
                                                                      logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await client.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }

    // MARK: Connection set-up

    private static func tls(_ mode: PostgresDatabaseURL.TLSMode) throws -> (connection: PostgresConnection.Configuration.TLS, client: PostgresClient.Configuration.TLS) {
        switch mode {
        case .disable: return (.disable, .disable)
        case .prefer:
            let configuration = TLSConfiguration.makeClientConfiguration()
            return (.prefer(try NIOSSLContext(configuration: configuration)), .prefer(configuration))
        case .require:
            let configuration = TLSConfiguration.makeClientConfiguration()
            return (.require(try NIOSSLContext(configuration: configuration)), .require(configuration))
        }
    }

    /// A short reason for a connection failure, without the URL's password (PostgresNIO's errors never carry it).
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Errors opening a ``PostgresStore``.
public enum PostgresStoreError: Error, Sendable, CustomStringConvertible {
    /// The server could not be reached, or refused the connection or the sign-in.
    case unreachable(PostgresDatabaseURL, reason: String)
    /// The schema could not be brought up to date (missing privileges, a conflicting table).
    case migrationFailed(PostgresDatabaseURL, reason: String)

    /// One line naming the server and the reason, with the password masked.
    public var description: String {
        switch self {
        case .unreachable(let url, let reason): "cannot connect to the database at \(url.endpoint) (\(url.description)): \(reason)"
        case .migrationFailed(let url, let reason): "cannot migrate the database \(url.description): \(reason)"
        }
    }
}

extension PSQLError {
    /// SQLSTATE 23505: a unique index refused the row (a name taken by a concurrent writer).
    var isUniqueViolation: Bool { serverInfo?[.sqlState] == "23505" }
}
