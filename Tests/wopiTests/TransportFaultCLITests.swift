import Foundation
import TestSupport
import Testing

/// Hosts that fail below HTTP's level — nothing listening, a reset, no answer, an HTML page, an endless
/// body — through the real `wopi check-host` and `wopi onboarding`: one line naming the kind in plain
/// words, nothing written to a host whose CheckFileInfo is not JSON, and onboarding exits 1.
@Suite(.serialized) struct TransportFaultCLITests {
    static func checkHost(_ wopiSrc: String, _ extra: [String] = []) async throws -> WopiProcess.Result {
        try await ScenarioCLITests.run(["check-host", "--wopi-src", wopiSrc, "--access-token", "transport-fault-token",
                                        "--testcases", try await FaultCorpusTests.validatorTestCases()] + extra, timeout: 120)
    }

    static func onboarding(_ wopiSrc: String, _ extra: [String] = []) async throws -> WopiProcess.Result {
        try await ScenarioCLITests.run(["onboarding", "--wopi-src", wopiSrc, "--access-token", "transport-fault-token"] + extra, timeout: 120)
    }

    /// The one line of a check-host run that names why CheckFileInfo got nowhere, and that it is the last check.
    static func answersLine(_ run: WopiProcess.Result) throws -> String {
        let lines = RoundTripTests.lines(run.stdout)
        let checks = lines.filter { $0.hasPrefix("[") }
        #expect(checks.count == 1, "nothing else is checked when CheckFileInfo got nowhere:\n\(run.stdout)")
        #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(lines.last?.hasPrefix("verdict: not ready: 1 of 1 checks failed: rule checkfileinfo.answers") == true, "\(run.stdout)")
        #expect(!run.stdout.contains("transport-fault-token"))
        return try #require(checks.first { $0.hasPrefix("[FAIL] rule checkfileinfo.answers:") }, "\(run.stdout)")
    }

    @Test("nothing listening: 'connection refused', no errno, no type name; onboarding exits 1", .timeLimit(.minutes(3)))
    func refused() async throws {
        let wopiSrc = "http://127.0.0.1:\(try LocalPort.free())/wopi/files/F1"
        let line = try Self.answersLine(try await Self.checkHost(wopiSrc))
        #expect(line.hasSuffix(": connection refused (nothing listens there)"), "\(line)")
        #expect(!line.contains("errno") && !line.contains("Error") && !line.contains("(error set)"), "\(line)")
        let onboarding = try await Self.onboarding(wopiSrc)
        #expect(onboarding.exitCode == 1, "\(onboarding.stdout)\n\(onboarding.stderr)")
        #expect(onboarding.stderr.contains("the host could not be asked: no answer from \(wopiSrc): connection refused"), "\(onboarding.stderr)")
        #expect(onboarding.stdout.contains("\"problems\""), "the form is still printed:\n\(onboarding.stdout)")
    }

    @Test("simulate against nothing listening: the URL, a colon, then 'connection refused'", .timeLimit(.minutes(3)))
    func simulateRefused() async throws {
        let wopiSrc = "http://127.0.0.1:\(try LocalPort.free())/wopi/files/F1"
        let run = try await ScenarioCLITests.run(["simulate", "ms-word:ofe|u|\(wopiSrc)|d|StandIn|e|user|n|Plan.docx|a|App", "--access-token", "transport-fault-token"],
                                                 timeout: 120)
        #expect(run.exitCode == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("no answer from \(wopiSrc): connection refused (nothing listens there)"), "\(run.stderr)")
        #expect(!run.stderr.contains("errno") && !run.stdout.contains("transport-fault-token"), "\(run.stderr)")
    }

    @Test("a reset connection: 'connection reset by the host'", .timeLimit(.minutes(3)))
    func reset() async throws {
        try await MisbehavingHost.withRunning(.reset) { host in
            let line = try Self.answersLine(try await Self.checkHost(host.wopiSrc))
            #expect(line.hasSuffix(": connection reset by the host"), "\(line)")
        }
    }

    @Test("a host that never answers: 'timed out after 2 s' with --timeout 2; onboarding exits 1", .timeLimit(.minutes(3)))
    func hang() async throws {
        try await MisbehavingHost.withRunning(.hang) { host in
            let line = try Self.answersLine(try await Self.checkHost(host.wopiSrc, ["--timeout", "2"]))
            #expect(line.hasSuffix(": timed out after 2 s without a complete answer"), "\(line)")
            let onboarding = try await Self.onboarding(host.wopiSrc, ["--timeout", "2"])
            #expect(onboarding.exitCode == 1, "\(onboarding.stdout)\n\(onboarding.stderr)")
            #expect(onboarding.stderr.contains("timed out after 2 s"), "\(onboarding.stderr)")
        }
    }

    @Test("an HTML CheckFileInfo: one line with status and the page's start; no scenario, no PutRelativeFile; onboarding exits 1",
          .timeLimit(.minutes(3)))
    func html() async throws {
        try await MisbehavingHost.withRunning(.html) { host in
            let line = try Self.answersLine(try await Self.checkHost(host.wopiSrc))
            #expect(line.contains("CheckFileInfo answered 200 but not a JSON object"), "\(line)")
            #expect(line.contains("Content-Type: \"text/html; charset=utf-8\"") && line.contains("body: <!doctype html><html><head><title>Sign in"), "\(line)")
            #expect(host.requests.count == 1 && host.requests.allSatisfy { $0.hasPrefix("GET ") }, "only CheckFileInfo was sent: \(host.requests)")
            let onboarding = try await Self.onboarding(host.wopiSrc)
            #expect(onboarding.exitCode == 1, "\(onboarding.stdout)\n\(onboarding.stderr)")
            #expect(onboarding.stderr.contains("CheckFileInfo answered 200 but not a JSON object"), "\(onboarding.stderr)")
        }
    }

    @Test("an endless body: 'body over 64 MiB', read no further; --max-body-size sets the one limit", .timeLimit(.minutes(3)))
    func endless() async throws {
        try await MisbehavingHost.withRunning(.endless) { host in
            let line = try Self.answersLine(try await Self.checkHost(host.wopiSrc))
            #expect(line.hasSuffix(": body over 64 MiB; reading stopped there"), "\(line)")
            let smaller = try Self.answersLine(try await Self.checkHost(host.wopiSrc, ["--max-body-size", "2"]))
            #expect(smaller.hasSuffix(": body over 2 MiB; reading stopped there"), "\(smaller)")
            let onboarding = try await Self.onboarding(host.wopiSrc, ["--max-body-size", "2"])
            #expect(onboarding.exitCode == 1 && onboarding.stderr.contains("body over 2 MiB"), "\(onboarding.stdout)\n\(onboarding.stderr)")
        }
    }

    @Test("onboarding exits 0 when the host answered, even with an error status: the problem is in problems", .timeLimit(.minutes(3)))
    func answeredIsZero() async throws {
        try await FaultyWOPIHost.withRunning(fault: nil) { host in
            let run = try await ScenarioCLITests.run(["onboarding", "--wopi-src", host.wopiSrc("nope"), "--access-token", FaultyWOPIHost.token],
                                                     timeout: 120)
            #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("CheckFileInfo answered HTTP 404"), "\(run.stdout)")
        }
    }
}
