import Foundation
import WOPIHost
import Logging
import NIOCore
import PostgresNIO
import NIOConcurrencyHelpers

/// The PostgreSQL store's connection pool, watched so that a database that goes away costs each
/// request at most about a second, and a database that comes back serves the next request.
///
/// PostgresNIO's pool keeps a request waiting while it retries connecting, for up to a minute, and then
/// backs off for up to a minute between attempts. So this supervisor decides instead:
///
/// - A query that fails on a broken or refused connection is answered `StoreUnavailable` at once,
///   and a probe (a fresh connection and `SELECT 1`) checks the server.
/// - When queries are in flight and none has finished for ``Timing/stallLimit``, the probe runs too:
///   that is how a server that stopped between two requests, or hangs, is noticed.
/// - When a query has waited ``Timing/progressLimit`` although the server answers probes (a server process frozen
///   or orphaned behind a connection, or a pool backing off after failing to connect), the pool is replaced: its
///   connections close and its waiting queries fail, each answered `StoreUnavailable`. A batched statement, which many
///   requests wait on, is answered so within ``Timing/closeLimit`` of its pool's end even if the pool never fails it
///   (``runUnlessAbandoned(_:)``).
/// - When the probe fails, the pool is shut down (which fails every waiting query) and every query
///   after that throws `StoreUnavailable` without touching the network, except one at a time that
///   probes again; the first probe that succeeds starts a fresh pool and lets its query through.
///
/// The healthy path costs one uncontended lock on entry and one on exit.
final class SupervisedPostgresClient: Sendable {
    /// How quickly failures are noticed.
    struct Timing: Sendable {
        /// How long queries may be in flight with none finishing before the server is probed.
        var stallLimit: Duration = .milliseconds(500)
        /// How long a probe may take, connecting and answering `SELECT 1`. A probe that times out declares
        /// an outage only when no query finished meanwhile either, and only the ``hungProbes``-th in a row:
        /// a busy server (or a busy host process) is slow, not down. A refused connection counts at once.
        var probeTimeout: Duration = .seconds(1)
        /// How many timed-out probes in a row, with no query finishing, make a hung server an outage.
        var hungProbes = 3
        /// How long a query may wait on the pool while the server answers probes, before the pool is replaced: a
        /// connection whose server process is frozen or was orphaned by a crash never answers, though the server
        /// takes new connections, and a pool that failed to connect while the server restarted backs off for up to a
        /// minute before it tries again.
        var progressLimit: Duration = .seconds(4)
        /// How often in-flight queries are looked at.
        var tick: Duration = .milliseconds(100)
        /// How long ``close()`` waits for the pool to finish. A pool still connecting to a server that does not
        /// answer (its host gone, packets dropped) finishes only when the connect times out, after 10 s; a
        /// process stopping must not wait that out.
        var closeLimit: Duration = .milliseconds(500)
    }

    private struct State {
        var client: PostgresClient?
        var runner: Task<Void, Never>?
        /// Why the database is considered down; `nil` while it works.
        var outage: String?
        var isProbing = false
        /// The queries in flight, by number: when each entered, the pool it entered, and whether its wait was reported.
        var started: [UInt64: (since: ContinuousClock.Instant, pool: UInt64, isReported: Bool)] = [:]
        var nextQuery: UInt64 = 0
        /// Which pool is in use: each new one gets the next number.
        var pool: UInt64 = 0
        var finished = 0
        var finishedAtLastTick = 0
        var stalledSince: ContinuousClock.Instant?
        /// Probes in a row that got no answer while no query finished either.
        var timedOutProbes = 0
        var isClosed = false
        /// Opened when the pool in use is shut down (replaced, taken down in an outage, or closed), for
        /// ``runUnlessAbandoned(_:)``; the next pool gets a new one.
        var poolEnd = Latch()

        /// Takes the latch of the pool in use, to be opened outside the lock, and puts a new one in its place.
        mutating func endPool() -> Latch {
            defer { poolEnd = Latch() }
            return poolEnd
        }

        /// Counts a query in; its number, for ``leave(_:)``.
        mutating func start(at now: ContinuousClock.Instant) -> UInt64 {
            defer { nextQuery &+= 1 }
            started[nextQuery] = (now, pool, false)
            return nextQuery
        }
    }

    private let configuration: PostgresClient.Configuration
    private let probeConfiguration: PostgresConnection.Configuration
    private let timing: Timing
    private let logger: Logger
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let state = NIOLockedValueBox(State())
    private let watchdog = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Starts a pool with `configuration`; probes connect with `probeConfiguration`.
    init(configuration: PostgresClient.Configuration, probeConfiguration: PostgresConnection.Configuration, timing: Timing = Timing(),
         logger: Logger) async {
        self.configuration = configuration
        var probeConfiguration = probeConfiguration
        probeConfiguration.options.connectTimeout = TimeAmount(timing.probeTimeout)
        self.probeConfiguration = probeConfiguration
        self.timing = timing
        self.logger = logger
        let (client, runner) = await Self.start(configuration, logger: logger)
        state.withLockedValue {
            $0.client = client
            $0.runner = runner
        }
        // The watchdog holds the supervisor weakly, so a store that is dropped without close() still goes away.
        let task = Task.detached { [weak self, tick = timing.tick] in
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                guard let self else { return }
                await self.lookForStalls()
            }
        }
        watchdog.withLockedValue { $0 = task }
    }

    /// The pool in use (for tests that tamper with the database); `nil` during an outage.
    var client: PostgresClient? { state.withLockedValue { $0.client } }

    /// Runs `body` on the pool. Throws `StoreUnavailable` at once while the database is down, and when
    /// `body` fails because a connection broke or could not be made; any other error reaches the caller as it was.
    func run<Result>(isolation: isolated (any Actor)? = #isolation,
                     _ body: (PostgresClient) async throws -> sending Result) async throws -> sending Result {
        let (client, query, _) = try await enter()
        defer { leave(query) }
        do {
            return try await body(client)
        } catch {
            throw failure(error)
        }
    }

    /// Runs `body` as ``run(_:)`` does, but answers `StoreUnavailable` once its pool has been shut down for
    /// ``Timing/closeLimit``, whether or not the pool ever ends the query: a statement that many requests wait on (a
    /// batch) must not hold them all. Costs a task per call, which is why ``run(_:)`` does not do it.
    func runUnlessAbandoned<Result: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> Result) async throws -> Result {
        let (client, query, poolEnd) = try await enter()
        defer { leave(query) }
        let closeLimit = timing.closeLimit
        let outcome = await firstOutcome(before: {
            await poolEnd.wait()
            try? await Task.sleep(for: closeLimit)
        }, { try await body(client) })
        switch outcome {
        case .success(let result)?: return result
        case .failure(let error)?: throw failure(error)
        case nil: throw StoreUnavailable("the database connection was closed with its pool")
        }
    }

    /// Shuts the pool down, waiting for it at most ``Timing/closeLimit``; a pool that takes longer finishes in
    /// the background. Queries after this fail.
    func close() async {
        watchdog.withLockedValue { $0?.cancel() }
        let (runner, poolEnd) = state.withLockedValue { state -> (Task<Void, Never>?, Latch) in
            state.isClosed = true
            state.client = nil
            defer { state.runner = nil }
            return (state.runner, state.endPool())
        }
        poolEnd.open()
        guard let runner else { return }
        runner.cancel()
        _ = await firstOutcome(within: timing.closeLimit) { await runner.value }
    }

    // MARK: Entering and leaving

    private enum Entry {
        case client(PostgresClient, UInt64, Latch)
        case unavailable(String)
        case probe
    }

    /// The pool to run a query on, the query's number, and the latch opened when that pool is shut down.
    private func enter() async throws -> (PostgresClient, UInt64, Latch) {
        let now = ContinuousClock.now
        let entry = state.withLockedValue { state -> Entry in
            if state.isClosed { return .unavailable("the store is closed") }
            if let client = state.client, state.outage == nil {
                return .client(client, state.start(at: now), state.poolEnd)
            }
            guard !state.isProbing else { return .unavailable(state.outage ?? "the database is being checked") }
            state.isProbing = true
            return .probe
        }
        switch entry {
        case .client(let client, let query, let poolEnd): return (client, query, poolEnd)
        case .unavailable(let reason): throw StoreUnavailable(reason)
        case .probe:
            // One request at a time checks whether the database is back; the others are answered at once.
            if let reason = await probe().failure {
                state.withLockedValue {
                    $0.outage = reason
                    $0.isProbing = false
                }
                throw StoreUnavailable(reason)
            }
            let (client, runner) = await Self.start(configuration, logger: logger)
            let entered = state.withLockedValue { state -> (query: UInt64, poolEnd: Latch)? in
                state.isProbing = false
                guard !state.isClosed else { return nil }
                state.client = client
                state.runner = runner
                state.pool += 1
                state.outage = nil
                state.stalledSince = nil
                return (state.start(at: .now), state.poolEnd)
            }
            guard let entered else {
                runner.cancel()
                throw StoreUnavailable("the store is closed")
            }
            logger.notice("the database answers again")
            return (client, entered.query, entered.poolEnd)
        }
    }

    private func leave(_ query: UInt64) {
        state.withLockedValue {
            $0.started[query] = nil
            $0.finished &+= 1
        }
    }

    /// The error to throw for a failed query: `StoreUnavailable` when the connection failed (and a probe
    /// then checks the server), the error itself otherwise.
    private func failure(_ error: any Error) -> any Error {
        if let transaction = error as? PostgresTransactionError,
           let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
            return failure(inner)
        }
        if let unavailable = error as? StoreUnavailable { return unavailable }
        let outage = state.withLockedValue { $0.outage }
        guard let reason = outage ?? Self.connectionFailure(error) else { return error }
        if outage == nil { Task { await self.checkServer() } }
        return StoreUnavailable(reason)
    }

    // MARK: Watching

    /// Probes the server when queries are in flight and none has finished for the stall limit, and replaces the pool's
    /// connections when a query has waited the progress limit although the server answers a probe at once.
    private func lookForStalls() async {
        let now = ContinuousClock.now
        let (shouldProbe, isStuck, abandoned) = state.withLockedValue { state -> (Bool, Bool, Int) in
            defer { state.finishedAtLastTick = state.finished }
            // A query left waiting in a pool that was shut down should have failed with it: said once, as it should not happen.
            var abandoned = 0
            for (query, entry) in state.started where !entry.isReported && entry.pool != state.pool && now - entry.since >= timing.progressLimit * 2 {
                state.started[query]?.isReported = true
                abandoned += 1
            }
            guard state.outage == nil, !state.isClosed, !state.isProbing else { return (false, false, abandoned) }
            // Some queries may fail at once while others wait for good, so each query's own wait counts, not the pool's.
            let pool = state.pool
            let isStuck = state.started.values.contains { $0.pool == pool && now - $0.since >= timing.progressLimit }
            guard !state.started.isEmpty, state.finished == state.finishedAtLastTick else {
                state.stalledSince = nil
                return (false, isStuck, abandoned)
            }
            let since = state.stalledSince ?? now
            state.stalledSince = since
            return (now - since >= timing.stallLimit, isStuck, abandoned)
        }
        if abandoned > 0 {
            logger.warning("queries still wait on a pool that was shut down", metadata: ["queries": "\(abandoned)", "waited": "\(timing.progressLimit * 2)"])
        }
        if isStuck || shouldProbe {
            await checkServer(replacingIfAnswered: isStuck)
        }
    }

    /// Starts a fresh pool for the queries to come and shuts the stuck one down, which closes its connections and so
    /// fails the queries waiting on them (each answered `StoreUnavailable`).
    private func replacePool() async {
        let (client, runner) = await Self.start(configuration, logger: logger)
        // `nil` when an outage or close came first: the fresh pool is not wanted then.
        let stuck = state.withLockedValue { state -> (runner: Task<Void, Never>?, poolEnd: Latch)? in
            guard state.outage == nil, !state.isClosed else { return nil }
            defer {
                state.client = client
                state.runner = runner
                state.pool += 1
                state.stalledSince = nil
            }
            return (state.runner, state.endPool())
        }
        guard let stuck else {
            runner.cancel()
            return
        }
        logger.error("a query waited \(timing.progressLimit) on the pool while the database answers; replacing the pool")
        stuck.runner?.cancel()
        stuck.poolEnd.open()
    }

    /// Probes the server once (unless a probe is running); when it fails, declares the outage and shuts
    /// the pool down, which fails every query waiting in it.
    ///
    /// With `replacingIfAnswered`, a query has waited the progress limit: a probe that is answered then shows it stuck
    /// rather than slow, and the pool is replaced. (On a machine too busy to serve the query, the probe is late too, and
    /// replacing the pool would fail every query in it.)
    private func checkServer(replacingIfAnswered: Bool = false) async {
        let claimed = state.withLockedValue { state -> Bool in
            guard !state.isProbing, state.outage == nil, !state.isClosed else { return false }
            state.isProbing = true
            return true
        }
        guard claimed else { return }
        let finishedBefore = state.withLockedValue { $0.finished }
        let outcome = await probe()
        let ended = state.withLockedValue { state -> (runner: Task<Void, Never>?, poolEnd: Latch)? in
            state.isProbing = false
            state.stalledSince = nil
            guard let reason = outcome.failure, !(outcome.timedOut && state.finished != finishedBefore) else {
                state.timedOutProbes = 0
                return nil
            }
            if outcome.timedOut {
                state.timedOutProbes += 1
                guard state.timedOutProbes >= timing.hungProbes else { return nil }
            }
            state.timedOutProbes = 0
            state.outage = reason
            state.client = nil
            defer { state.runner = nil }
            return (state.runner, state.endPool())
        }
        if let ended {
            logger.error("the database is unavailable: \(outcome.failure ?? "")")
            ended.runner?.cancel()
            ended.poolEnd.open()
        } else if replacingIfAnswered, outcome.failure == nil {
            await replacePool()
        }
    }

    /// Connects afresh and runs `SELECT 1`: `failure` is `nil` when that worked within the probe timeout, else why not.
    private func probe() async -> (failure: String?, timedOut: Bool) {
        let configuration = probeConfiguration
        let logger = logger
        let outcome = await firstOutcome(within: timing.probeTimeout) {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                _ = try await connection.query("SELECT 1", logger: logger).collect()
                try? await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        }
        switch outcome {
        case .success: return (nil, false)
        case .failure(let error): return (Self.connectionFailure(error) ?? PostgresStore.reason(error), false)
        case nil: return ("no answer within \(timing.probeTimeout)", true)
        }
    }

    // MARK: Helpers

    /// A pool running in a task of its own: it must outlive the caller's task (and its graceful-shutdown context).
    private static func start(_ configuration: PostgresClient.Configuration, logger: Logger) async -> (PostgresClient, Task<Void, Never>) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let (started, continuation) = AsyncStream.makeStream(of: Void.self)
        let runner = Task.detached {
            continuation.finish()
            await client.run()
        }
        // No query is leased before the pool runs.
        for await _ in started {}
        return (client, runner)
    }

    /// A short reason when `error` means the server cannot be reached or dropped the connection; `nil` for
    /// an error about the query itself (a constraint, a syntax error), which says nothing about the server.
    static func connectionFailure(_ error: any Error) -> String? {
        switch error {
        case let error as PSQLError:
            switch error.code {
            case .clientClosedConnection, .serverClosedConnection, .connectionError, .uncleanShutdown, .poolClosed,
                 .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
                return error.underlying.flatMap(connectionFailure) ?? "the connection to the database failed (\(error.code))"
            case .server:
                // Class 08: connection exceptions; 57P01–57P03: the server is shutting down or starting; 53300: too many connections.
                guard let state = error.serverInfo?[.sqlState],
                      state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state) else { return nil }
                return error.serverInfo?[.message] ?? "the database refused the connection (\(state))"
            default:
                return nil
            }
        case let error as IOError:
            return "cannot connect to the database (\(String(cString: strerror(error.errnoCode))))"
        case is ChannelError:
            return "the connection to the database failed"
        case let error as NIOConnectionError:
            return error.connectionErrors.first.flatMap { connectionFailure($0.error) } ?? "cannot connect to the database"
        default:
            return nil
        }
    }
}
