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
/// - When a query has waited ``Timing/progressLimit``, the probe also asks the server what this pool's connections
///   are doing (each pool has its own `application_name`). If none runs a statement or holds a transaction open, twice
///   ``Timing/workingRecheck`` apart (a server process frozen or orphaned behind a connection, or a pool backing off
///   after failing to connect; a host process too busy to read its answers has read them by the second look), the
///   pool is stuck and is replaced: its connections close and its waiting queries fail, each answered
///   `StoreUnavailable`. If the server is working on them (a lock wait, a busy machine), the query is slow, not stuck,
///   and keeps waiting up to ``Timing/workingLimit``. A batched statement, which many
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
        /// How long a query may wait while the server is working on this pool's statements before the pool is replaced
        /// anyway: a server process stopped in the middle of a statement still shows as running it.
        var workingLimit: Duration = .seconds(30)
        /// How long after one look at what the pool's connections are doing the server is asked again.
        var workingRecheck: Duration = .milliseconds(500)
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
        /// When the server was last asked about a query waiting past the progress limit; `nil` while none waits so long.
        var lastAsked: ContinuousClock.Instant?
        /// Answers in a row that the server runs none of the pool's statements, while a query waited past the progress limit.
        var idleAnswers = 0
        /// Whether the server was seen working for the pool while a query waited past the progress limit (said once).
        var sawWorking = false
        var isClosed = false
        /// The host is stopping: one timed-out probe is an outage (``hostIsStopping()``).
        var isStopping = false
        /// Opened when the pool in use is shut down (replaced, taken down in an outage, or closed), for
        /// ``runUnlessAbandoned(_:)``; the next pool gets a new one.
        var poolEnd = Latch()

        /// Takes the latch of the pool in use, to be opened outside the lock, and puts a new one in its place.
        mutating func endPool() -> Latch {
            defer { poolEnd = Latch() }
            return poolEnd
        }

        /// Forgets what the server was asked about a query waiting past the progress limit: none waits so long now.
        mutating func forgetLooks() {
            lastAsked = nil
            idleAnswers = 0
            sawWorking = false
        }

        /// Counts a query in; its number, for ``leave(_:)``.
        mutating func start(at now: ContinuousClock.Instant) -> UInt64 {
            defer { nextQuery &+= 1 }
            started[nextQuery] = (now, pool, false)
            return nextQuery
        }
    }

    private let configuration: PostgresClient.Configuration
    /// What the pools' connections are called in `pg_stat_activity`: "wopikit", a random tag and the pool's number.
    private let applicationName = "wopikit " + String(UInt32.random(in: 0...UInt32.max), radix: 16)
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
        let (client, runner) = await Self.start(configuration, named: name(ofPool: 0), logger: logger)
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

    /// The host is stopping: from now on the first timed-out probe declares the outage. Three in a row give a busy
    /// server time while the host serves; a stopping host only needs its last queries answered or failed.
    func hostIsStopping() {
        state.withLockedValue { $0.isStopping = true }
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
            let pool = state.withLockedValue { $0.pool } + 1
            let (client, runner) = await Self.start(configuration, named: name(ofPool: pool), logger: logger)
            let entered = state.withLockedValue { state -> (query: UInt64, poolEnd: Latch)? in
                state.isProbing = false
                guard !state.isClosed else { return nil }
                state.client = client
                state.runner = runner
                state.pool = pool
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
        if let unavailable = error as? StoreUnavailable { return unavailable }
        let outage = state.withLockedValue { $0.outage }
        guard let reason = outage ?? Self.connectionFailure(error) else { return error }
        if outage == nil { Task { await self.checkServer() } }
        return StoreUnavailable(reason)
    }

    // MARK: Watching

    /// What a query of the pool in use that has waited the progress limit asks of the next probe.
    private enum Stuck {
        /// Replace the pool unless the server is working on its statements.
        case askServer
        /// The query has waited the working limit: replace the pool if the server answers at all.
        case replace
    }

    /// Probes the server when queries are in flight and none has finished for the stall limit, and looks into any
    /// query that has waited the progress limit.
    private func lookForStalls() async {
        let now = ContinuousClock.now
        let (shouldProbe, stuck, abandoned) = state.withLockedValue { state -> (Bool, Stuck?, Int) in
            defer { state.finishedAtLastTick = state.finished }
            // A query left waiting in a pool that was shut down should have failed with it: said once, as it should not happen.
            var abandoned = 0
            for (query, entry) in state.started where !entry.isReported && entry.pool != state.pool && now - entry.since >= timing.progressLimit * 2 {
                state.started[query]?.isReported = true
                abandoned += 1
            }
            guard state.outage == nil, !state.isClosed, !state.isProbing else { return (false, nil, abandoned) }
            // Some queries may fail at once while others wait for good, so each query's own wait counts, not the pool's.
            let pool = state.pool
            var stuck: Stuck?
            switch state.started.values.lazy.filter({ $0.pool == pool }).map({ now - $0.since }).max() {
            case let longest? where longest >= timing.workingLimit:
                stuck = .replace
            case let longest? where longest >= timing.progressLimit:
                if state.lastAsked.map({ now - $0 >= timing.workingRecheck }) ?? true { stuck = .askServer }
            default:
                state.forgetLooks()
            }
            guard !state.started.isEmpty, state.finished == state.finishedAtLastTick else {
                state.stalledSince = nil
                return (false, stuck, abandoned)
            }
            let since = state.stalledSince ?? now
            state.stalledSince = since
            return (now - since >= timing.stallLimit, stuck, abandoned)
        }
        if abandoned > 0 {
            logger.warning("queries still wait on a pool that was shut down", metadata: ["queries": "\(abandoned)", "waited": "\(timing.progressLimit * 2)"])
        }
        if stuck != nil || shouldProbe {
            await checkServer(stuck)
        }
    }

    /// What a probe showed.
    private enum Verdict {
        case answered
        case down(runner: Task<Void, Never>?, poolEnd: Latch)
        case stuck(String)
        case working([String], isNew: Bool)
    }

    /// Probes the server once (unless a probe is running). When it fails, declares the outage and shuts the pool down,
    /// which fails every query waiting in it. When it answers and a query is stuck, replaces the pool.
    ///
    /// A query that has waited the progress limit is stuck only if the server is not working on any of the pool's
    /// statements. On a machine too busy to serve the query, or with the query waiting for a row lock, the server shows
    /// the statement running, and replacing the pool would only fail every query in it.
    private func checkServer(_ stuck: Stuck? = nil) async {
        let pool = state.withLockedValue { state -> UInt64? in
            guard !state.isProbing, state.outage == nil, !state.isClosed else { return nil }
            state.isProbing = true
            return state.pool
        }
        guard let pool else { return }
        let finishedBefore = state.withLockedValue { $0.finished }
        let outcome = await probe(askingAbout: stuck == .askServer ? name(ofPool: pool) : nil)
        let verdict = state.withLockedValue { state -> Verdict in
            state.stalledSince = nil
            guard let reason = outcome.failure, !(outcome.timedOut && state.finished != finishedBefore) else {
                state.timedOutProbes = 0
                // A query that ended while the probe ran was slow, not stuck.
                let now = ContinuousClock.now
                let stillWaits = state.started.values.contains { $0.pool == pool && now - $0.since >= timing.progressLimit }
                switch stuck {
                case nil:
                    break
                case _ where !stillWaits:
                    break
                case .replace:
                    // The probing goes on until the pool is replaced, so that no other replacement starts meanwhile.
                    return .stuck("a query waited \(timing.workingLimit) on the pool")
                case .askServer where outcome.working.isEmpty:
                    state.idleAnswers += 1
                    if state.idleAnswers >= 2 {
                        return .stuck("a query waited \(timing.progressLimit) on the pool, and twice the database ran none of its statements")
                    }
                    state.lastAsked = .now
                case .askServer:
                    defer { state.sawWorking = true }
                    state.lastAsked = .now
                    state.idleAnswers = 0
                    state.isProbing = false
                    return .working(outcome.working, isNew: !state.sawWorking)
                }
                state.isProbing = false
                return .answered
            }
            state.isProbing = false
            if outcome.timedOut {
                state.timedOutProbes += 1
                guard state.timedOutProbes >= (state.isStopping ? 1 : timing.hungProbes) else { return .answered }
            }
            state.timedOutProbes = 0
            state.outage = reason
            state.client = nil
            defer { state.runner = nil }
            return .down(runner: state.runner, poolEnd: state.endPool())
        }
        switch verdict {
        case .answered:
            break
        case .down(let runner, let poolEnd):
            logger.error("the database is unavailable: \(outcome.failure ?? "")")
            runner?.cancel()
            poolEnd.open()
        case .stuck(let why):
            await replacePool(because: why)
        case .working(let statements, let isNew):
            if isNew {
                logger.warning("a query has waited \(timing.progressLimit) on the pool while the database works on its statements; it goes on waiting",
                               metadata: ["statements": "\(statements.joined(separator: "; "))"])
            }
        }
    }

    /// Starts a fresh pool for the queries to come and shuts the stuck one down, which closes its connections and so
    /// fails the queries waiting on them (each answered `StoreUnavailable`). Called while probing, which it ends.
    private func replacePool(because reason: String) async {
        let pool = state.withLockedValue { $0.pool } + 1
        let (client, runner) = await Self.start(configuration, named: name(ofPool: pool), logger: logger)
        // `nil` when a close came first: the fresh pool is not wanted then.
        let stuck = state.withLockedValue { state -> (runner: Task<Void, Never>?, poolEnd: Latch)? in
            state.isProbing = false
            guard state.outage == nil, !state.isClosed else { return nil }
            defer {
                state.client = client
                state.runner = runner
                state.pool = pool
                state.stalledSince = nil
                state.forgetLooks()
            }
            return (state.runner, state.endPool())
        }
        guard let stuck else {
            runner.cancel()
            return
        }
        logger.error("\(reason); replacing the pool")
        stuck.runner?.cancel()
        stuck.poolEnd.open()
    }

    /// Connects afresh and runs `SELECT 1`: `failure` is `nil` when that worked within the probe timeout, else why not.
    /// With `pool`, also reads what that pool's connections are doing: each one running a statement or holding a
    /// transaction open, as "state (wait event)".
    private func probe(askingAbout pool: String? = nil) async -> (failure: String?, timedOut: Bool, working: [String]) {
        let configuration = probeConfiguration
        let logger = logger
        let outcome = await firstOutcome(within: timing.probeTimeout) { () -> [String] in
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                _ = try await connection.query("SELECT 1", logger: logger).collect()
                var working: [String] = []
                if let pool {
                    let rows = try await connection.query("""
                        SELECT state, wait_event_type, wait_event FROM pg_stat_activity
                        WHERE application_name = \(pool) AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')
                        """, logger: logger)
                    for try await (state, type, event) in rows.decode((String, String?, String?).self) {
                        working.append(type.map { "\(state) (\($0): \(event ?? ""))" } ?? state)
                    }
                }
                try? await connection.close()
                return working
            } catch {
                try? await connection.close()
                throw error
            }
        }
        switch outcome {
        case .success(let working): return (nil, false, working)
        case .failure(let error): return (Self.connectionFailure(error) ?? PostgresStore.reason(error), false, [])
        case nil: return ("no answer within \(timing.probeTimeout)", true, [])
        }
    }

    /// The `application_name` of pool number `pool`.
    private func name(ofPool pool: UInt64) -> String { "\(applicationName) \(pool)" }

    // MARK: Helpers

    /// A pool running in a task of its own: it must outlive the caller's task (and its graceful-shutdown context). Its
    /// connections are called `name` in `pg_stat_activity`.
    private static func start(_ configuration: PostgresClient.Configuration, named name: String, logger: Logger) async -> (PostgresClient, Task<Void, Never>) {
        var configuration = configuration
        configuration.options.additionalStartupParameters.append(("application_name", name))
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
