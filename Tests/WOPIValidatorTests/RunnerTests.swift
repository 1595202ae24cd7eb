import Testing
import WOPIHTTPClient
@testable import WOPIValidator

@Suite("Running real test cases against an in-memory host")
struct RunnerTests {
    static let groups: Set<String> = ["BaseWopiViewing", "Locks", "GetLock", "ExtendedLockLength", "FileVersion", "EditFlows"]

    func run(_ host: FakeWOPIHost, groups: Set<String> = RunnerTests.groups, cases: Set<String> = [],
             policy: ValidationPolicy = .wopiKit) async throws -> RunReport {
        let target = try ConformanceTarget(wopiSrc: FakeWOPIHost.wopiSrc, accessToken: FakeWOPIHost.token, accessTokenTTL: 1)
        let selection = RunSelection(onlyGroups: groups, onlyCases: cases)
        let runner = ConformanceRunner(definitions: try await Fixtures.definitions(), target: target, selection: selection, policy: policy, transport: host)
        return await runner.run()
    }

    @Test("a correct file-and-lock host passes every case of the lock, version and viewing groups")
    func correctHostPasses() async throws {
        let report = try await run(FakeWOPIHost())
        for result in report.results where result.status != .passed {
            Issue.record("\(result.summaryLine)")
        }
        #expect(report.totals.failed == 0)
        #expect(report.totals.passed == report.results.count)
        #expect(report.results.count >= 30)
        #expect(report.totals.line == "\(report.results.count) passed, 0 failed, 0 skipped")
    }

    @Test("no X-WOPI-Lock on 409 fails each lock-mismatch case (run alone on a fresh host) and nothing else", arguments: [
        ("LockMismatchOnLockRequest", "Lock"),
        ("LockMismatchOnUnlockRequest", "Unlock"),
        ("LockMismatchOnRefreshLockRequest", "RefreshLock"),
        ("LockMismatchOnUnlockAndRelockRequest", "UnlockAndRelock"),
        ("LockMismatchOnPutFileRequest", "PutFile"),
        ("LockMismatchAfterUnlockAndRelockRequest", "Unlock"),
    ])
    func missingLockHeaderFails(testCase: String, request: String) async throws {
        let report = try await run(FakeWOPIHost(faults: .init(omitLockOnConflict: true)), groups: ["Locks"], cases: [testCase])
        let result = try #require(report.results.first)
        #expect(report.results.count == 1)
        #expect(result.status == .failed)
        #expect(result.errors == ["'X-WOPI-Lock' header is not present on the response"])
        #expect(result.failingRequest?.status == 409)
        #expect(result.failingRequest?.name == request)
        #expect(result.summaryLine.hasPrefix("FAIL Locks/\(testCase): \(request) request failed. [HTTP 409]"))
    }

    @Test("the same broken host still passes lock cases that never see a 409")
    func missingLockHeaderSparesOthers() async throws {
        for name in ["SuccessfulLockSequence", "DoubleLockSequence", "LockLengthValidation"] {
            let report = try await run(FakeWOPIHost(faults: .init(omitLockOnConflict: true)), groups: ["Locks"], cases: [name])
            #expect(report.totals == RunReport.Totals(passed: 1), "\(name)")
        }
    }

    @Test("cleanup requests run after a failure and release the lock")
    func cleanupRuns() async throws {
        let host = FakeWOPIHost(faults: .init(omitLockOnGetLock: true))
        let report = try await run(host, groups: ["GetLock"], cases: ["files.GetLock"])
        #expect(report.totals.failed == 1)
        let records = try #require(report.results.first?.requests)
        #expect(records.map(\.name) == ["Lock", "GetLock", "Unlock"])
        #expect(records.last?.isCleanup == true && records.last?.status == 200)
        #expect(records.last?.failures.isEmpty == true)
        let after = try await run(host, groups: ["Locks"], cases: ["SuccessfulLockSequence"])
        #expect(after.totals.passed == 1)
    }

    @Test("no X-WOPI-ItemVersion fails the FileVersion cases, unless the original's leniency is chosen")
    func missingItemVersion() async throws {
        let strict = try await run(FakeWOPIHost(faults: .init(omitItemVersion: true)), groups: ["FileVersion"])
        #expect(strict.totals.failed == strict.results.count)
        #expect(strict.results.count == 6)
        #expect(strict.failures.allSatisfy { $0.errors.contains("'X-WOPI-ItemVersion' header is not present on the response") })
        let lenient = try await run(FakeWOPIHost(faults: .init(omitItemVersion: true)), groups: ["FileVersion"], policy: .original)
        #expect(lenient.totals.failed == 0)
    }

    @Test("a failing prerequisite skips the whole group and names the prerequisite")
    func prerequisiteSkips() async throws {
        let report = try await run(FakeWOPIHost(faults: .init(claimNoLocks: true)), groups: ["Locks", "BaseWopiViewing"])
        let locks = report.results.filter { $0.group == "Locks" }
        #expect(locks.count == 13)
        #expect(locks.allSatisfy { $0.status == .skipped && $0.message == "Prerequisites failed: LocksPrereq" })
        #expect(report.results.filter { $0.group == "BaseWopiViewing" }.allSatisfy { $0.status == .passed })
        #expect(report.totals.skipped == 13)
    }

    @Test("the runner sends the Office native client User-Agent when that category is selected")
    func userAgent() async throws {
        let host = FakeWOPIHost()
        _ = try await run(host, groups: ["BaseWopiViewing"])
        let requests = await host.requests
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.headers.value(for: "User-Agent") == ConformanceRunner.nativeClientUserAgent })
    }

    @Test("an unreachable host fails every prerequisite, so every case is skipped and nothing passes")
    func unreachableHost() async throws {
        struct Refusing: HTTPTransport {
            struct Refused: Error {}
            func send(_ request: TransportRequest) async throws -> TransportResponse { throw Refused() }
        }
        let target = try ConformanceTarget(wopiSrc: FakeWOPIHost.wopiSrc, accessToken: "t")
        let runner = ConformanceRunner(definitions: try await Fixtures.definitions(), target: target,
                                       selection: RunSelection(onlyGroups: ["Locks"]), transport: Refusing())
        let report = await runner.run()
        #expect(report.totals.passed == 0)
        #expect(report.totals.skipped == 13)
        #expect(report.results[0].errors.first?.hasPrefix("ExceptionValidator: Exception thrown while executing") == true)
    }

    @Test("a failed WopiValidatorPrereq is one failure, sent once, naming how many cases it kept from running")
    func requiredPrerequisiteFails() async throws {
        let host = FakeWOPIHost(faults: .init(omitOwnerId: true))
        let report = try await run(host)
        let failure = try #require(report.prerequisiteFailures.first)
        #expect(report.prerequisiteFailures.count == 1)
        #expect(failure.name == "WopiValidatorPrereq" && failure.failingRequest?.status == 200)
        #expect(failure.errors.contains { $0.contains("OwnerId") }, "\(failure.errors)")
        #expect(failure.blockedCases == report.results.count && report.results.count >= 30)
        #expect(report.results.allSatisfy { $0.status == .skipped && $0.blockingPrerequisite == "WopiValidatorPrereq" })
        #expect(report.totals == RunReport.Totals(passed: 0, failed: 1, skipped: report.results.count))
        #expect(failure.blockedLine == "WopiValidatorPrereq failed: \(report.results.count) cases not run")
        // The skip lines name the prerequisite; only the failure carries the reason.
        #expect(report.results.allSatisfy { !$0.summaryLine.contains("OwnerId") })
        #expect(failure.summaryLine.hasPrefix("FAIL prerequisite WopiValidatorPrereq: CheckFileInfo request failed. [HTTP 200] "))
        #expect(failure.summaryLine.contains(" body: {\"BaseFileName\":\"test.wopitest\""), "\(failure.summaryLine)")
        #expect(await host.requests.count == 1, "the failed prerequisite is not sent again")
    }

    @Test("feature gates only ask whether the host claims a feature; WopiValidatorPrereq checks what every host must answer")
    func featureGates() async throws {
        let definitions = try await Fixtures.definitions()
        #expect(try #require(definitions.prerequisiteCase(named: "LocksPrereq")).isFeatureGate)
        #expect(try #require(definitions.prerequisiteCase(named: "UserCanNotWriteRelativePrereq")).isFeatureGate)
        #expect(try #require(definitions.prerequisiteCase(named: "UserCanRenameContainerPrereq")).isFeatureGate, "its EnumerateAncestors only finds the folder")
        #expect(try #require(definitions.prerequisiteCase(named: "WopiValidatorPrereq")).isFeatureGate == false)
    }

    @Test("request records never hold the access token")
    func recordsAreMasked() async throws {
        let report = try await run(FakeWOPIHost(faults: .init(omitItemVersion: true)), groups: ["FileVersion", "Locks"])
        let records = report.results.flatMap(\.requests)
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { !$0.url.contains(FakeWOPIHost.token) && !$0.requestHeaders.contains { $0.value.contains(FakeWOPIHost.token) } })
        #expect(records.contains { $0.url.contains("access_token=[redacted]") })
    }

    @Test("a cancelled run stops between cases and reports only the cases that finished")
    func cancellationStops() async throws {
        /// Cancels the task that sends once the host has seen 20 requests.
        struct CancellingTransport: HTTPTransport {
            let host: FakeWOPIHost
            func send(_ request: TransportRequest) async throws -> TransportResponse {
                if await host.requests.count >= 20 { withUnsafeCurrentTask { $0?.cancel() } }
                return try await host.send(request)
            }
        }
        let host = FakeWOPIHost()
        let target = try ConformanceTarget(wopiSrc: FakeWOPIHost.wopiSrc, accessToken: FakeWOPIHost.token, accessTokenTTL: 1)
        let runner = ConformanceRunner(definitions: try await Fixtures.definitions(), target: target,
                                       selection: RunSelection(onlyGroups: RunnerTests.groups), transport: CancellingTransport(host: host))
        // Its own task, so the cancellation stays there.
        let report = await Task { await runner.run() }.value
        #expect(report.results.count > 0 && report.results.count < runner.plannedCases().count, "\(report.results.count) cases")
        #expect(report.results.allSatisfy { $0.status == .passed }, "no case is reported as failed by the cancellation")
    }
}
