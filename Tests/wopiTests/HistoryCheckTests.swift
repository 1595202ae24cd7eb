#if os(Linux)
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
import WOPIHistory

/// Jepsen's method on this machine: 16 clients work on a few files through two hosts that share PostgreSQL and
/// a body folder, while a host is killed and restarted and PostgreSQL is frozen and then stopped; every request
/// is recorded, and ``HistoryChecker`` must find no broken promise. The checker itself is shown to flag the
/// histories recorded from a stand-in host with a planted lost update, and one with a planted double lock grant.
///
/// The run is seeded (`WOPI_HISTORY_SEED`, else a random seed that failures print) and short: 24 s. A long run
/// with WOPIKit's own bounds (answers within 5 s, full service 10 s after a fault) is
/// `WOPI_HISTORY_SECONDS=600 WOPI_HISTORY_STRICT=1 swift test --filter HistoryCheckTests`; in the suite the
/// bounds only guard against hangs, since a busy suite keeps the hosts waiting for the two cores.
@Suite("Histories of concurrent clients under faults", .serialized)
struct HistoryCheckTests {
    static let environment = ProcessInfo.processInfo.environment
    static let isStrict = environment["WOPI_HISTORY_STRICT"] == "1"
    static let seconds = environment["WOPI_HISTORY_SECONDS"].flatMap(Int.init) ?? 24
    static let seed = environment["WOPI_HISTORY_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...1_000_000)
    static let checker = isStrict ? HistoryChecker() : HistoryChecker(answerBound: .seconds(90), recoveryBound: .seconds(90))
    static let clientTimeout: Duration = isStrict ? .seconds(6) : .seconds(91)
    /// Clients pause longer in the suite, which shares two cores with every other test.
    static let thinkTime: Duration = isStrict ? .milliseconds(40) : .milliseconds(150)

    static func report(_ anomalies: [HistoryAnomaly]) -> String {
        "seed \(seed) (WOPI_HISTORY_SEED), \(anomalies.count) anomalies:\n" + anomalies.prefix(12).map(\.description).joined(separator: "\n")
    }

    @Test("two hosts on one PostgreSQL: no save lost, no lock held twice, versions in order, answers bounded, under faults",
          .timeLimit(.minutes(20)))
    func twoHostsUnderFaults() async throws {
        let postgres = try await offPool { try PostgresTestServer.startPrivate() }
        defer { postgres.shutDown() }
        let database = try await offPool { try postgres.makeDatabase() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-history-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let storage = ["--database", database, "--blobs", work.appendingPathComponent("blobs").path]
        let hosts = Mutex<[WopiServer]>([])
        defer { hosts.withLock { $0.forEach { $0.stop() } } }
        for index in 0..<2 {
            let host = try await WopiServer.start(data: work.appendingPathComponent("host\(index)"), extraArguments: storage)
            hosts.withLock { $0.append(host) }
        }

        // Six documents with known first bodies, and a token for each that every host accepts.
        var targets: [HistoryRecorder.Target] = [], initialBodies: [String: BodyDigest] = [:]
        for index in 0..<6 {
            let path = work.appendingPathComponent("History \(index).docx")
            let body = Data("first body of document \(index), seed \(Self.seed)".utf8)
            try body.write(to: path)
            let cli = storage + ["--data", work.appendingPathComponent("cli").path]
            let added = try await WopiProcess.run(["files", "add", path.path, "--owner", "demo"] + cli)
            let id = try #require(added.stdout.firstMatch(of: /"id":"([0-9a-f]{32})"/)?.1, "\(added.stdout) \(added.stderr)")
            let minted = try await WopiProcess.run(["token", "--user", "demo", "--file", String(id), "--lifetime", "7200"] + cli)
            let token = try #require(minted.stdout.firstMatch(of: /"access_token":"([^"]+)"/)?.1, "\(minted.stderr)")
            targets.append(.init(id: String(id), token: String(token)))
            initialBodies[String(id)] = HistoryRecorder.digest(body)
        }

        let start = ContinuousClock.now
        let finished = Mutex(false)
        let recorder = HistoryRecorder(files: targets, hosts: { hosts.withLock { $0.map { "http://127.0.0.1:\($0.port)" } } },
                                       clients: 16, operationsPerClient: .max,
                                       // After the faults, until the history has enough in it to show something (on a busy
                                       // machine the faults last longer, and fewer requests succeed), or after ten minutes.
                                       isFinished: { tally in
                                           finished.withLock { $0 } && (tally.saves >= 10 && tally.reads >= 20 && tally.grants >= 10
                                                                        || start.duration(to: .now) > .seconds(600))
                                       },
                                       minimumOperations: 30, thinkTime: Self.thinkTime, timeout: Self.clientTimeout, seed: Self.seed)
        async let recorded = recorder.record(from: start)

        // The faults, one after the other, spread over the run.
        var faults: [FaultWindow] = []
        let step = Duration.seconds(Self.seconds) / 6
        try await Task.sleep(until: start + step)
        var began = start.duration(to: .now)
        let victim = hosts.withLock { $0[0] }
        _ = try await offPool { victim.stop(signal: SIGKILL) }
        let restarted = try await WopiServer.start(data: work.appendingPathComponent("host0"), extraArguments: storage)
        hosts.withLock { $0[0] = restarted }
        faults.append(FaultWindow(kind: "host 0 killed and restarted", start: began, end: start.duration(to: .now)))

        try await Task.sleep(until: start + step * 2)
        began = start.duration(to: .now)
        try await offPool { postgres.pause() }
        try await Task.sleep(for: .seconds(3))
        try await offPool { postgres.resume() }
        faults.append(FaultWindow(kind: "PostgreSQL frozen for 3 s", start: began, end: start.duration(to: .now)))

        try await Task.sleep(until: start + step * 4)
        began = start.duration(to: .now)
        try await offPool { postgres.stopServer() }
        try await offPool { try postgres.restart() }
        faults.append(FaultWindow(kind: "PostgreSQL stopped and started", start: began, end: start.duration(to: .now)))
        // Service without faults to the end of the run, and for a few seconds at least: the hosts are back.
        try await Task.sleep(until: max(start + .seconds(Self.seconds), .now + step))
        finished.withLock { $0 = true }

        let events = await recorded
        let anomalies = Self.checker.check(History(events: events, initialBodies: initialBodies, faults: faults))
        // Found by this check and not fixed yet: a request that reaches a host while PostgreSQL shuts down can go
        // unanswered for minutes. Every other broken promise fails the test.
        let stopped = faults.last!
        let unansweredWhileStopping = anomalies.filter { $0.kind == .slowAnswer && $0.events.allSatisfy { stopped.start...stopped.end ~= $0.invoked } }
        let others = anomalies.filter { !unansweredWhileStopping.contains($0) }
        #expect(others.isEmpty, "\(Self.report(others))")
        if !unansweredWhileStopping.isEmpty {
            withKnownIssue("requests that reach a host while PostgreSQL shuts down can wait minutes for an answer", isIntermittent: true) {
                Issue.record("\(Self.report(unansweredWhileStopping))")
            }
        }

        // The history has enough in it to show something.
        let saves = events.filter { if case .putFile = $0.operation, case .succeeded = $0.outcome { true } else { false } }.count
        let reads = events.filter { if case .getFile = $0.operation, case .succeeded = $0.outcome { true } else { false } }.count
        let grants = events.filter { if case .lock = $0.operation, case .succeeded = $0.outcome { true } else { false } }.count
        let summary = "seed \(Self.seed): \(events.count) requests, \(saves) saves, \(reads) reads, \(grants) locks granted, "
            + "faults: \(faults.map { "\($0.kind) (\($0.end - $0.start))" }.joined(separator: ", "))"
        print("history check: \(summary)")
        #expect(saves >= 10 && reads >= 20 && grants >= 10, "\(summary)")
    }

    @Test("the checker flags what a stand-in host planted, and nothing on the correct one",
          arguments: [nil, .lostUpdate, .doubleLockGrant] as [HistoryStandInHost.Defect?])
    func plantedDefects(_ defect: HistoryStandInHost.Defect?) async throws {
        let files = ["A", "B"].reduce(into: [String: [UInt8]]()) { $0[$1] = Array("first body of \($1)".utf8) }
        let anomalies = try await HistoryStandInHost.withRunning(defect: defect, files: files) { base in
            let recorder = HistoryRecorder(files: files.keys.sorted().map { .init(id: $0, token: "stand-in") }, hosts: { [base] },
                                           clients: 16, operationsPerClient: 40, timeout: Self.clientTimeout, seed: Self.seed)
            let events = await recorder.record(from: .now)
            return Self.checker.check(History(events: events, initialBodies: files.mapValues { HistoryRecorder.digest($0) }))
        }
        switch defect {
        case nil: #expect(anomalies.isEmpty, "\(Self.report(anomalies))")
        case .lostUpdate?: #expect(anomalies.contains { $0.kind == .lostUpdate }, "\(Self.report(anomalies))")
        case .doubleLockGrant?: #expect(anomalies.contains { $0.kind == .doubleLockGrant }, "\(Self.report(anomalies))")
        }
    }
}
#endif
