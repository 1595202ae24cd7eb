import Foundation
import GRDB
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import WOPICore
@testable import WOPIHost
import WOPIStorePostgres

/// A metadata store that goes away while the host runs: every WOPI request is answered within
/// 2 s with 503, `Retry-After` and `X-WOPI-ServerError`; `/health/ready` says 503 with the reason
/// within 1 s while `/health/live` stays 200; and the host serves again, with no restart, as soon as
/// the database is back. The bounds are protocol guarantees of the fault path (a balancer gives up
/// after a few seconds), measured per request, not benchmarks; each is given the time a trivial
/// request takes at that moment on top, so a machine loaded by parallel tests does not fail them.
@Suite("Store unavailable")
struct StoreUnavailableTests {
    static let requestBound = Duration.seconds(2)
    static let readinessBound = Duration.seconds(1)

    /// Sends a request and returns the answer with how long it took.
    static func timed(_ request: () async throws -> WOPIResponse) async throws -> (WOPIResponse, Duration) {
        let start = ContinuousClock.now
        let response = try await request()
        return (response, ContinuousClock.now - start)
    }

    /// How long a trivial request (`/health/live`) takes right now: on a machine shared with many test
    /// processes every answer is slower, and the bounds are about waiting for the store, not about load.
    /// In the full parallel suite on two cores, the test's own task can wait seconds for a thread before it
    /// sees an answer, so the allowance is three such requests plus 8 s: an outage answered in seconds
    /// passes, the old behaviour (a 15 s busy timeout, a 60 s pool wait, 67 s in all) does not.
    static func loadAllowance(_ host: TestHost) async throws -> Duration {
        try await timed { try await host.send(.GET, "/health/live", token: nil) }.1 * 3 + .seconds(8)
    }

    /// A 503 from a store that is down, answered within the request bound (plus the current ``loadAllowance(_:)``).
    static func expectUnavailable(_ name: String, _ outcome: (WOPIResponse, Duration), host: TestHost, mentioning reason: String? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (response, elapsed) = outcome
        let allowance = try await loadAllowance(host)
        #expect(response.status == 503, "\(name): \(response)", sourceLocation: sourceLocation)
        #expect(response.header("Retry-After").flatMap(Int.init).map { $0 > 0 } == true, "\(name): \(response)", sourceLocation: sourceLocation)
        let error = response.header("X-WOPI-ServerError") ?? ""
        #expect(error.contains("unavailable"), "\(name): X-WOPI-ServerError '\(error)'", sourceLocation: sourceLocation)
        if let reason { #expect(error.contains(reason), "\(name): X-WOPI-ServerError '\(error)'", sourceLocation: sourceLocation) }
        #expect(elapsed < requestBound + allowance, "\(name) took \(elapsed) (a trivial request \(allowance))", sourceLocation: sourceLocation)
    }

    /// The operations a client runs on an open document, each answered while the store is down.
    static func operations(_ host: TestHost, _ doc: Document) -> [(String, () async throws -> WOPIResponse)] {
        [
            ("CheckFileInfo", { try await host.checkFileInfo(doc.id, token: doc.token) }),
            ("GetFile", { try await host.getFile(doc.id, token: doc.token) }),
            ("Lock", { try await host.lock(doc.id, token: doc.token, "outage-lock") }),
            ("GetLock", { try await host.getLock(doc.id, token: doc.token) }),
            ("PutFile", { try await host.putFile(doc.id, token: doc.token, lock: "outage-lock", Data("written during the outage".utf8)) }),
            ("CheckContainerInfo", { try await host.send(.GET, TestHost.containerPath(doc.user.rootContainerID.rawValue),
                                                         token: host.token(doc.user, .container(doc.user.rootContainerID))) }),
        ]
    }

    @Test("PostgreSQL stopped mid-run: every request gets 503 within 2 s, ready says 503 within 1 s, live stays 200, and the next request after a restart succeeds")
    func postgresStopped() async throws {
        let server = try await offPool { try PostgresTestServer.startPrivate() }
        defer { server.shutDown() }
        let database = try PostgresDatabaseURL(parsing: try await offPool { try server.makeDatabase() })
        let metrics = HostMetrics()
        try await TestHost.run(monitor: HostMonitor(metrics: metrics), database: database) { host in
            let doc = try await host.document()
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 200)
            expectStatus(try await host.send(.GET, "/health/ready", token: nil), 200)

            try await offPool { server.stopServer() }
            var refused = 0
            // Twice over: the first round finds the outage, the second is answered from what the host knows.
            for _ in 0..<2 {
                for (name, request) in Self.operations(host, doc) {
                    try await Self.expectUnavailable(name, try await Self.timed(request), host: host)
                    refused += 1
                }
            }
            let (ready, readyTime) = try await Self.timed { try await host.send(.GET, "/health/ready", token: nil) }
            #expect(ready.status == 503, "\(ready)")
            #expect(ready.text.contains("database"), "the reason: \(ready.text)")
            let allowance = try await Self.loadAllowance(host)
            #expect(readyTime < Self.readinessBound + allowance, "ready took \(readyTime) (a trivial request \(allowance))")
            expectStatus(try await host.send(.GET, "/health/live", token: nil), 200)
            #expect(metrics.exposition().contains("wopi_store_unavailable_total \(refused)"), "\(metrics.exposition())")

            // Back: the very next request is served, with no restart of the host.
            try await offPool { try server.restart() }
            let check = try await host.checkFileInfo(doc.id, token: doc.token)
            expectStatus(check, 200)
            expectStatus(try await host.send(.GET, "/health/ready", token: nil), 200)
            expectStatus(try await host.lock(doc.id, token: doc.token, "after-the-outage"), 200)
            // Nothing of the outage was recorded.
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("Hello, WOPI".utf8))
        }
    }

    @Test("PostgreSQL hung mid-run (frozen, connections accepted but never answered): 503 within seconds, ready 503, and served again once it thaws")
    func postgresHung() async throws {
        let server = try await offPool { try PostgresTestServer.startPrivate() }
        defer { server.resume(); server.shutDown() }
        let database = try PostgresDatabaseURL(parsing: try await offPool { try server.makeDatabase() })
        try await TestHost.run(database: database) { host in
            let doc = try await host.document()
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 200)

            server.pause()
            // The first request waits while the supervisor sees queries stall and probes time out in a row
            // (0.5 s, then three 1 s probes); it is answered then, not after PostgresNIO's minute.
            let first = try await Self.timed { try await host.checkFileInfo(doc.id, token: doc.token) }
            #expect(first.0.status == 503, "\(first.0)")
            let allowance = try await Self.loadAllowance(host)
            #expect(first.1 < Self.hungBound + allowance, "the first request took \(first.1) (a trivial request \(allowance))")
            // The outage is known now: each request waits for at most one probe.
            for (name, request) in Self.operations(host, doc) {
                try await Self.expectUnavailable(name, try await Self.timed(request), host: host)
            }
            let ready = try await host.send(.GET, "/health/ready", token: nil)
            #expect(ready.status == 503, "\(ready)")
            expectStatus(try await host.send(.GET, "/health/live", token: nil), 200)

            // Thawed: a probe still waiting on the frozen server answers its request with the outage; the
            // next probe finds the server, within a second or so.
            server.resume()
            let deadline = ContinuousClock.now + .seconds(10)
            var check = try await host.checkFileInfo(doc.id, token: doc.token)
            while check.status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                check = try await host.checkFileInfo(doc.id, token: doc.token)
            }
            expectStatus(check, 200)
            expectStatus(try await host.send(.GET, "/health/ready", token: nil), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("Hello, WOPI".utf8))
        }
    }

    @Test("PostgreSQL's open connections hung while it serves new ones (server processes frozen or orphaned): requests are answered within seconds and served again on fresh connections, with no restart",
          .timeLimit(.minutes(2)))
    func postgresConnectionsHung() async throws {
        let server = try await offPool { try PostgresTestServer.shared() }
        let url = try await offPool { try server.makeDatabase() }
        let name = String(url.split(separator: "/").last ?? "")
        let database = try PostgresDatabaseURL(parsing: url)
        try await TestHost.run(database: database) { host in
            let doc = try await host.document()
            // Several requests at once, so the pool holds more than one connection.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await host.checkFileInfo(doc.id, token: doc.token).status } }
                for try await status in group { #expect(status == 200) }
            }
            let frozen = server.freezeConnections(to: name)
            defer { server.resume(frozen) }
            try #require(!frozen.isEmpty, "the host's connections were found")
            // Each request is answered (refused with 503 while its connection is replaced, or served on a fresh one),
            // never left waiting on a connection that will not answer.
            let first = try await Self.timed { try await host.checkFileInfo(doc.id, token: doc.token) }
            #expect([200, 503].contains(first.0.status), "\(first.0)")
            let allowance = try await Self.loadAllowance(host)
            #expect(first.1 < Self.stuckBound + allowance, "the first request took \(first.1) (a trivial request \(allowance))")
            let deadline = ContinuousClock.now + .seconds(10) + allowance
            var check = try await host.checkFileInfo(doc.id, token: doc.token)
            while check.status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                check = try await host.checkFileInfo(doc.id, token: doc.token)
            }
            expectStatus(check, 200)
            expectStatus(try await host.lock(doc.id, token: doc.token, "fresh-lock"), 200)
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "fresh-lock", Data("saved on a fresh connection".utf8)), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("saved on a fresh connection".utf8))
        }
    }

    /// How long a request may wait on a connection that does not answer: the progress limit, with room.
    static let stuckBound = Duration.seconds(6)

    /// How long the first request may wait on a hung server: the stall limit and three probe timeouts, with room.
    static let hungBound = Duration.seconds(6)

    @Test("SQLite locked by another process: writes get 503 within 2 s (also when several queue up), reads go on, and the lock's release ends it")
    func sqliteLocked() async throws {
        let metrics = HostMetrics()
        try await TestHost.run(monitor: HostMonitor(metrics: metrics)) { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "held"), 200)
            let before = try await host.snapshot(doc)
            // Another process's connection that takes the write lock and keeps it.
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let other = try DatabaseQueue(path: host.dataURL.appendingPathComponent("wopi.sqlite").path, configuration: configuration)
            try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }

            try await Self.expectUnavailable("Lock", try await Self.timed { try await host.lock(doc.id, token: doc.token, "locked-out") },
                                             host: host, mentioning: "locked")
            try await Self.expectUnavailable("PutFile", try await Self.timed {
                try await host.putFile(doc.id, token: doc.token, lock: "held", Data("never saved".utf8))
            }, host: host, mentioning: "locked")
            // Writes queued behind one that found the file locked are answered as quickly.
            try await withThrowingTaskGroup(of: (WOPIResponse, Duration).self) { group in
                for index in 0..<4 {
                    group.addTask { try await Self.timed { try await host.lock(doc.id, token: doc.token, "queued-\(index)") } }
                }
                for try await outcome in group { try await Self.expectUnavailable("a queued Lock", outcome, host: host) }
            }
            // WAL readers are not blocked by a writer.
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 200)
            expectStatus(try await host.send(.GET, "/health/live", token: nil), 200)
            #expect(metrics.exposition().contains("wopi_store_unavailable_total 6"), "\(metrics.exposition())")

            try await other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
            try other.close()
            #expect(try await host.snapshot(doc) == before)
            expectStatus(try await host.unlock(doc.id, token: doc.token, "held"), 200)
        }
    }

    @Test("SQLite database file that cannot be read: 503 within 2 s, ready 503 within 1 s, live 200, and served again once the file is repaired")
    func sqliteUnreadable() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let path = host.dataURL.appendingPathComponent("wopi.sqlite").path
            // Everything into the main file, so the damage below is all a reader sees.
            let other = try DatabaseQueue(path: path)
            try await other.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
            try other.close()
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            let header = try #require(try handle.read(upToCount: 100))
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(repeating: 0x58, count: header.count))
            try handle.synchronize()

            for (name, request) in Self.operations(host, doc) {
                try await Self.expectUnavailable(name, try await Self.timed(request), host: host, mentioning: "cannot be read")
            }
            let (ready, readyTime) = try await Self.timed { try await host.send(.GET, "/health/ready", token: nil) }
            #expect(ready.status == 503, "\(ready)")
            #expect(ready.text.contains("cannot be read"), "the reason: \(ready.text)")
            let allowance = try await Self.loadAllowance(host)
            #expect(readyTime < Self.readinessBound + allowance, "ready took \(readyTime) (a trivial request \(allowance))")
            expectStatus(try await host.send(.GET, "/health/live", token: nil), 200)

            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: header)
            try handle.close()
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 200)
            expectStatus(try await host.send(.GET, "/health/ready", token: nil), 200)
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data("Hello, WOPI".utf8))
        }
    }
}
