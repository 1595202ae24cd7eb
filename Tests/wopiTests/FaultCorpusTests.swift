import Foundation
import Testing

/// What `wopi check-host` is proven to catch: the real binary, over real HTTP, against a stand-in WOPI
/// host (not WOPIKit's code) with one defect planted at a time, each seen in a real host. A fault
/// is caught when the run says "not ready" (exit 1) and names the checks that caught it — or, for
/// the two the docs only advise against, says "ready" with the warning counted apart. The same host
/// without a fault is "ready".
@Suite(.serialized) struct FaultCorpusTests {
    /// Where Microsoft's validator definitions are; one place, so the lookup is easy to change.
    static func validatorTestCases() async throws -> String {
        try await ConformanceTests.testCasesURL().path
    }

    static func checkHost(_ host: FaultyWOPIHost, _ extra: [String] = []) async throws -> WopiProcess.Result {
        try await ScenarioCLITests.run([
            "check-host", "--wopi-src", host.wopiSrc, "--access-token", FaultyWOPIHost.token, "--testcases", try await validatorTestCases(),
        ] + extra, timeout: 540)
    }

    // The limits are hang guards: the stand-in host runs in this process, which the whole suite shares on two cores.
    @Test("the stand-in without a fault is ready: every rule, the validator, the file scenarios and both browser editors pass",
          .timeLimit(.minutes(10)))
    func correctHostIsReady() async throws {
        try await FaultyWOPIHost.withRunning(fault: nil) { host in
            let content = try #require(await host.storage.files["F1"]?.bytes)
            let run = try await Self.checkHost(host, ["--client", "office-web", "--client", "collabora"])
            let lines = RoundTripTests.lines(run.stdout)
            #expect(run.exitCode == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(!lines.contains { $0.hasPrefix("[FAIL]") || $0.hasPrefix("[warn]") }, "\(run.stdout)")
            let verdict = try #require(lines.last)
            #expect(verdict.hasPrefix("verdict: ready (") && !verdict.contains("warning"), "\(verdict)")
            #expect(lines.filter { $0.hasPrefix("[ok]   validator ") }.count > 50, "the validator ran:\n\(run.stdout)")
            for rule in ["checkfileinfo.office-web-properties", "checkfileinfo.collabora-properties"] {
                #expect(lines.contains { $0.hasPrefix("[ok]   rule \(rule):") }, "rule \(rule):\n\(run.stdout)")
            }
            for scenario in ["open-edit-save", "create", "save-as", "rename", "conflict", "upload-pending", "office-web", "collabora"] {
                #expect(lines.contains { $0.hasPrefix("[ok]   scenario \(scenario):") }, "scenario \(scenario):\n\(run.stdout)")
            }
            #expect(await host.storage.files.values.allSatisfy { $0.lock == nil }, "every lock is released")
            // Every scenario that saved put the content it first read back.
            #expect(await host.storage.files["F1"]?.bytes == content, "the file holds what it held before the run")
            #expect(!lines.contains { $0.hasPrefix("left on the host:") }, "\(run.stdout)")
            #expect(await host.storage.files.values.allSatisfy { !$0.name.hasPrefix("check-host-") }, "the scratch file is deleted")
        }
    }

    @Test("check-host catches each planted fault and names the checks that caught it", .timeLimit(.minutes(5)),
          arguments: HostFault.allCases)
    func faultIsCaught(_ fault: HostFault) async throws {
        try await FaultyWOPIHost.withRunning(fault: fault) { host in
            let junit = FileManager.default.temporaryDirectory.appendingPathComponent("check-host-\(fault)-\(UUID().uuidString).xml")
            defer { try? FileManager.default.removeItem(at: junit) }
            let run = try await Self.checkHost(host, ["--junit", junit.path] + (fault.client.map { ["--client", $0] } ?? []))
            let lines = RoundTripTests.lines(run.stdout)
            let verdict = try #require(lines.last)
            if fault.isReady {
                #expect(run.exitCode == 0, "\(fault): \(run.stdout)\n\(run.stderr)")
                #expect(verdict.hasPrefix("verdict: ready (") && !verdict.contains("warning"), "\(fault): \(verdict)")
            } else if fault.isWarning {
                #expect(run.exitCode == 0, "\(fault): \(run.stdout)\n\(run.stderr)")
                #expect(verdict.hasPrefix("verdict: ready (") && verdict.contains("1 warning: \(fault.caughtBy[0])"), "\(fault): \(verdict)")
            } else {
                #expect(run.exitCode == 1, "\(fault) was not caught:\n\(run.stdout)\n\(run.stderr)")
                #expect(verdict.hasPrefix("verdict: not ready: "), "\(fault): \(verdict)")
            }
            let mark = fault.isReady ? "[skip]" : fault.isWarning ? "[warn]" : "[FAIL]"
            let xml = try String(contentsOf: junit, encoding: .utf8)
            for check in fault.caughtBy {
                #expect(lines.contains { $0.hasPrefix("\(mark) \(check):") }, "\(fault): no '\(mark) \(check)' line in:\n\(run.stdout)")
                if fault.isReady { continue }
                #expect(verdict.contains(check), "\(fault): the verdict does not name \(check): \(verdict)")
                // In the JUnit XML a failure is a <failure>; a warning passes, its detail marked "warning:".
                let (suite, name) = (String(check.prefix { $0 != " " }), String(check.drop { $0 != " " }.dropFirst()))
                let testcase = "<testcase classname=\"check-host.\(suite)\" name=\"\(name)\">\n      "
                #expect(xml.contains(testcase + (fault.isWarning ? "<system-out>warning: " : "<failure ")), "\(fault): \(check) in the JUnit XML")
            }
            // No cascade: what one scenario did never fails another, and what a client treats as optional never fails it.
            for check in fault.mustPass {
                #expect(lines.contains { $0.hasPrefix("[ok]   \(check):") }, "\(fault): \(check) did not pass:\n\(run.stdout)")
            }
            if let (check, words) = fault.namedCause {
                #expect(lines.contains { $0.hasPrefix("[FAIL] \(check):") && $0.contains(words) }, "\(fault): '\(words)' not in \(check):\n\(run.stdout)")
            }
            if let leftover = fault.leftover {
                #expect(lines.contains { $0.hasPrefix(leftover) }, "\(fault): no '\(leftover)…' line:\n\(run.stdout)")
            } else {
                #expect(!lines.contains { $0.hasPrefix("left on the host:") }, "\(fault): \(run.stdout)")
            }
            if fault == .putRelativeCreatesAndAnswers500 {
                #expect(lines.contains { $0.hasPrefix("[FAIL] validator scratch-file:") && $0.contains("anyway; it is deleted") }, "\(run.stdout)")
                let names = await host.storage.names
                #expect(!names.contains { $0.hasPrefix("check-host-") }, "the scratch file is deleted: \(names)")
            }
        }
    }
}
