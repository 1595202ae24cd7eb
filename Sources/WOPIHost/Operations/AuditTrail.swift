import Foundation
import Logging
import NIOConcurrencyHelpers

/// The host's side of the fleet's audit trail: events recorded during requests are appended to the
/// store (``AuditStore``) by one writer, in batches, off the request's path; the trail is pruned of
/// events older than its retention when it starts and every ``pruneInterval`` after.
///
/// A request never waits for the database: ``record(_:)`` only queues, and the writer appends what is
/// queued in one transaction at most every 100 ms. While the store is down the
/// writer retries every second, queueing up to ``capacity`` events; beyond that new events are
/// dropped and counted in a warning. ``run()`` returns once ``finish()`` was called and the queue is
/// written (`wopi serve` calls it after the last request has drained).
public final class AuditTrail: Sendable {
    /// Where the trail is kept.
    public let store: any AuditStore
    /// How long events are kept; `nil` keeps them forever.
    public let retention: TimeInterval?
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// The only mutable state.
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let queue = NIOLockedValueBox(Queue())
    private let wakeUps: AsyncStream<Void>
    /// Opened by ``finish()``: calls into the store get their last limit from then on.
    private let finishing = Latch()
    private let wakeUp: AsyncStream<Void>.Continuation

    private struct Queue {
        var events: [AuditEvent] = []
        var dropped = 0
        /// Whether the store refused the last append: a host stopping then does not wait for it once more.
        var lastAppendFailed = false
        /// Whether ``finish()`` was called.
        var isFinished = false
        /// The wait before the next try after a failed append, which ``finish()`` cuts short.
        var retryPause: Task<Void, Never>?
    }

    /// The most events queued while the store does not take them.
    public static let capacity = 100_000
    /// How often a running trail deletes events older than its retention.
    public static let pruneInterval: Duration = .seconds(3600)
    /// The most events appended in one step.
    static let batchSize = 500
    /// The shortest time between two appends: an event is written at once, the ones after it together.
    static let batchInterval: Duration = .milliseconds(100)
    /// How long an append may still take once the trail is finishing, including one that began before, when the store
    /// refused the append before it: a host that stops while its database stops answering (rather than refusing) must
    /// not wait for the store to notice.
    static let finalAppendLimit: Duration = .milliseconds(500)
    /// The same for a store that took the append before: a slow store (a busy database, a sanitized build, where a batch
    /// of 500 events into PostgreSQL took more than 5 s) still gets the last events, and one that dies just then still
    /// lets the host stop, once the store's own outage check (a few seconds) fails the append.
    static let answeringStoreLimit: Duration = .seconds(15)

    /// A trail appending to `store`, keeping events for `retention` (seconds; `nil`: forever).
    public init(store: any AuditStore, retention: TimeInterval?, logger: Logger = Logger(label: "wopi.audit"),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.retention = retention
        self.logger = logger
        self.now = now
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeUps = stream
        wakeUp = continuation
    }

    /// Queues an event for the writer; never blocks on the store.
    public func record(_ event: AuditEvent) {
        let queued = withQueue { queue in
            guard queue.events.count < Self.capacity else {
                queue.dropped += 1
                return false
            }
            queue.events.append(event)
            return true
        }
        if queued { wakeUp.yield() }
    }

    private func withQueue<T>(_ body: (inout Queue) -> T) -> T {
        queue.withLockedValue { body(&$0) }
    }

    /// Ends ``run()`` once what is queued is written.
    ///
    /// A trail whose store refused the last append writes nothing more: a host that stops while its database
    /// is gone stops at once instead of waiting for another answer, and what was queued is logged as lost.
    public func finish() {
        withQueue { queue in
            queue.isFinished = true
            queue.retryPause?.cancel()
        }
        store.hostIsStopping()
        finishing.open()
        wakeUp.finish()
    }

    /// How long a call into the store may still take once the trail is finishing: little when the store refused the
    /// last append, more when it took it.
    private var finishingLimit: Duration {
        withQueue { $0.lastAppendFailed } ? Self.finalAppendLimit : Self.answeringStoreLimit
    }

    /// Runs a call into the store until it answers, or until the trail has been finishing for `limit`: it is then
    /// cancelled and left to end on its own, and `nil` is returned.
    private func untilFinished<Value: Sendable>(plus limit: Duration, _ call: @escaping @Sendable () async throws -> Value) async -> Result<Value, any Error>? {
        await firstOutcome(before: { [finishing] in
            await finishing.wait()
            try? await Task.sleep(for: limit)
        }, call)
    }

    /// Prunes, then writes queued events as they come and prunes every ``pruneInterval``, until ``finish()``.
    public func run() async {
        if let retention { await prune(keeping: retention) }
        await withTaskGroup(of: Void.self) { group in
            if let retention {
                group.addTask {
                    while (try? await Task.sleep(for: Self.pruneInterval)) != nil {
                        await self.prune(keeping: retention)
                    }
                }
            }
            for await _ in wakeUps {
                await writeQueued(retrying: true)
                // What arrives meanwhile goes in the next batch: one commit per interval at most, so a busy
                // host's trail does not compete with its lock changes for the database's write lock.
                if !withQueue({ $0.isFinished }) { try? await Task.sleep(for: Self.batchInterval) }
            }
            await writeQueued(retrying: false)
            group.cancelAll()
        }
    }

    /// Deletes the events older than `retention`, once; a trail that is finishing waits for it as for an append.
    public func prune(keeping retention: TimeInterval) async {
        let store = self.store, cutoff = now().addingTimeInterval(-retention)
        switch await untilFinished(plus: finishingLimit, { try await store.removeAuditEvents(before: cutoff) }) {
        case .success(let removed)?:
            if removed > 0 { logger.notice("pruned the audit trail", metadata: ["removed": "\(removed)", "days": "\(Int(retention / 86_400))"]) }
        case .failure(let error)?:
            logger.warning("could not prune the audit trail", metadata: ["error": "\(error)"])
        case nil:
            logger.notice("stopped waiting for the audit trail's pruning: the host is stopping")
        }
    }

    /// Appends what is queued. While running (`retrying`), once, putting back what failed to try again
    /// later; at the end, until nothing is left or the store fails.
    private func writeQueued(retrying: Bool) async {
        repeat {
            let (events, dropped) = withQueue { queue in
                defer { queue.events = []; queue.dropped = 0 }
                return (queue.events, queue.dropped)
            }
            if dropped > 0 { logger.warning("audit events dropped: the store did not take them in time", metadata: ["dropped": "\(dropped)"]) }
            guard !events.isEmpty else { return }
            if !retrying, withQueue({ $0.lastAppendFailed }) {
                logger.error("audit events lost: the store did not take them", metadata: ["lost": "\(events.count)"])
                return
            }
            var written = 0
            do {
                while written < events.count {
                    let batch = Array(events[written..<min(events.count, written + Self.batchSize)])
                    let store = self.store
                    let limit = finishingLimit
                    switch await untilFinished(plus: limit, { try await store.appendAuditEvents(batch) }) {
                    case .success?: break
                    case .failure(let error)?: throw error
                    case nil: throw AppendTimedOut(limit: limit)
                    }
                    written += batch.count
                }
                withQueue { $0.lastAppendFailed = false }
            } catch {
                withQueue { $0.lastAppendFailed = true }
                let unwritten = events[written...]
                guard retrying else {
                    logger.error("audit events lost: the store did not take them", metadata: ["lost": "\(unwritten.count)", "error": "\(error)"])
                    return
                }
                logger.warning("could not append to the audit trail; retrying", metadata: ["queued": "\(unwritten.count)", "error": "\(error)"])
                withQueue { queue in
                    queue.events.insert(contentsOf: unwritten, at: 0)
                    if queue.events.count > Self.capacity {
                        queue.dropped += queue.events.count - Self.capacity
                        queue.events.removeLast(queue.events.count - Self.capacity)
                    }
                }
                let pause = withQueue { queue -> Task<Void, Never>? in
                    guard !queue.isFinished else { return nil }
                    queue.retryPause = Task { try? await Task.sleep(for: .seconds(1)) }
                    return queue.retryPause
                }
                await pause?.value
                wakeUp.yield()
            }
        } while !retrying
    }

    /// The store did not take an append in time while the trail was finishing.
    struct AppendTimedOut: Error, CustomStringConvertible {
        var limit: Duration
        var description: String { "the store did not answer within \(limit) of the trail finishing" }
    }
}
