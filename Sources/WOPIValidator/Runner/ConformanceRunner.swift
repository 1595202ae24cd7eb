import Foundation
import WOPICore
import WOPIHTTPClient

/// Runs Microsoft's WOPI validator definitions against a host, with the semantics of Microsoft's own runner
/// (`wopi-validator-core`'s `TestCaseExecutor`):
///
/// - Cases are selected by category (`WopiCore` always) and group; excluded and `HasDelay` groups do not run.
/// - Before every case, its group's prerequisite cases run; the first one that does not pass turns the case
///   into a skip that names it. A prerequisite that fails for the host's fault (not a feature gate, or no
///   normal answer) also counts once as a failure, and is not sent again in that run.
/// - A case's requests run in order with fresh ``SavedState``; each response is checked by the mandatory
///   Content-Length check plus its validators (status 200 when none are declared); the first request with a
///   failure fails the case. After a passing request, its `<SaveState>` values are stored.
/// - `<CleanupRequests>` always run afterwards, even when the run is cancelled; their outcome is recorded, never judged.
/// - The User-Agent is `Microsoft Office WOPI Validator/1.0` when `OfficeNativeClient` is selected or the case
///   belongs to it, as the original sends it.
///
/// Request records hold no secret: the access token, and `Bearer`, token and password fields, are masked.
///
/// Deviations, all deliberate: ``ValidationPolicy`` may require headers the XML leaves optional; a request
/// that cannot be built (missing `$State:` value) fails its case instead of aborting the whole run; prerequisite
/// cases are found whatever their category (the original throws when a group names a prereq of another category).
public struct ConformanceRunner: Sendable {
    /// The User-Agent the original sends for Office native client runs.
    public static let nativeClientUserAgent = "Microsoft Office WOPI Validator/1.0"
    /// The longest response body a transport for the runner should accept, in bytes: the limit every `wopi`
    /// command reads bodies up to (64 MiB); validator answers are small JSON documents or the definitions'
    /// resource files, so it is ample and bounds a runaway host.
    public static let maximumResponseBodySize = AsyncHTTPClientTransport.defaultMaximumBodySize

    /// The definitions to run.
    public let definitions: ValidatorDefinitions
    /// The file under test.
    public let target: ConformanceTarget
    /// What to run.
    public let selection: RunSelection
    /// Deliberate strictness beyond the original.
    public let policy: ValidationPolicy
    private let transport: any HTTPTransport
    /// Signs every request with proof headers when set; see ``ValidatorProofSigner``.
    public let proofSigner: ValidatorProofSigner?

    /// Creates a runner.
    public init(definitions: ValidatorDefinitions, target: ConformanceTarget, selection: RunSelection = .wopiKit,
                policy: ValidationPolicy = .wopiKit, transport: any HTTPTransport, proofSigner: ValidatorProofSigner? = nil) {
        self.definitions = definitions
        self.target = target
        self.selection = selection
        self.policy = policy
        self.transport = transport
        self.proofSigner = proofSigner
    }

    /// The groups and cases the selection will run, in file order (excluded groups left out).
    public func plannedCases() -> [(group: TestGroup, testCase: TestCase)] {
        var planned: [(group: TestGroup, testCase: TestCase)] = []
        for group in definitions.groups where selection.exclusion(for: group.name) == nil {
            if !selection.onlyGroups.isEmpty && !selection.onlyGroups.contains(group.name) { continue }
            let anyCategory = selection.groupsInAnyCategory.contains { $0.lowercased() == group.name.lowercased() }
            for testCase in group.cases where anyCategory || testCase.category.isSelected(by: selection.categories) {
                if !selection.onlyCases.isEmpty && !selection.onlyCases.contains(testCase.name) { continue }
                planned.append((group, testCase))
            }
        }
        return planned
    }

    /// Runs every planned case one after another, calling `progress` as each finishes.
    ///
    /// A prerequisite that fails as a failure of the host (``TestCase/isFeatureGate``) is reported once,
    /// through `prerequisiteFailed`, and not sent again: the cases it keeps from running are skipped and
    /// name it. The run stops early, between cases, when its task is cancelled; the report then holds the
    /// cases that finished.
    public func run(progress: @Sendable (TestCaseResult) async -> Void = { _ in },
                    prerequisiteFailed: @Sendable (PrerequisiteFailure) async -> Void = { _ in }) async -> RunReport {
        var results: [TestCaseResult] = []
        var failedPrerequisites: [PrerequisiteFailure] = []
        for (group, testCase) in plannedCases() {
            if Task.isCancelled { break }
            let result: TestCaseResult
            if group.hasDelay && !selection.includesDelayedGroups {
                result = TestCaseResult(group: group.name, name: testCase.name, category: testCase.category.rawValue,
                                        status: .skipped, message: "group \(group.name) uses delays; not run", errors: [], requests: [])
            } else {
                let known = failedPrerequisites.count
                result = await run(testCase, in: group, failedPrerequisites: &failedPrerequisites)
                if Task.isCancelled { break }
                for failure in failedPrerequisites[known...] { await prerequisiteFailed(failure) }
            }
            results.append(result)
            await progress(result)
        }
        let excluded = selection.excludedGroups.filter { exclusion in
            definitions.groups.contains { $0.name.lowercased() == exclusion.name.lowercased() }
        }
        for index in failedPrerequisites.indices {
            failedPrerequisites[index].blockedCases = results.count { $0.blockingPrerequisite == failedPrerequisites[index].name }
        }
        return RunReport(results: results, excludedGroups: excluded, prerequisiteFailures: failedPrerequisites)
    }

    /// Runs one case with its group's prerequisites.
    public func run(_ testCase: TestCase, in group: TestGroup) async -> TestCaseResult {
        var failures: [PrerequisiteFailure] = []
        return await run(testCase, in: group, failedPrerequisites: &failures)
    }

    private func run(_ testCase: TestCase, in group: TestGroup, failedPrerequisites: inout [PrerequisiteFailure]) async -> TestCaseResult {
        let userAgent = selection.categories.contains(.officeNativeClient) || testCase.category == .officeNativeClient
            ? Self.nativeClientUserAgent : nil
        func skipped(_ message: String, errors: [String], requests: [RequestRecord], blockedBy: String?) -> TestCaseResult {
            TestCaseResult(group: group.name, name: testCase.name, category: testCase.category.rawValue, status: .skipped,
                           message: message, errors: errors, requests: requests, blockingPrerequisite: blockedBy)
        }
        for prereqName in group.prerequisiteNames {
            if let failure = failedPrerequisites.first(where: { $0.name == prereqName }) {
                return skipped("Prerequisites failed: \(prereqName)", errors: failure.errors, requests: [], blockedBy: prereqName)
            }
            guard let prereq = definitions.prerequisiteCase(named: prereqName) else {
                return skipped("Prerequisites failed: \(prereqName) is not defined", errors: [], requests: [], blockedBy: nil)
            }
            let outcome = await execute(prereq, userAgent: userAgent)
            guard outcome.status != .passed else { continue }
            let failingStatus = outcome.requests.last { !$0.failures.isEmpty }?.status
            // A feature gate that got a normal answer only says the host does not claim the feature.
            if prereq.isFeatureGate, failingStatus == 200 {
                return skipped("Prerequisites failed: \(prereqName)", errors: outcome.errors, requests: outcome.requests, blockedBy: nil)
            }
            failedPrerequisites.append(PrerequisiteFailure(name: prereqName, message: outcome.message, errors: outcome.errors,
                                                           requests: outcome.requests))
            return skipped("Prerequisites failed: \(prereqName)", errors: outcome.errors, requests: outcome.requests, blockedBy: prereqName)
        }
        let outcome = await execute(testCase, userAgent: userAgent)
        return TestCaseResult(group: group.name, name: testCase.name, category: testCase.category.rawValue, status: outcome.status,
                              message: outcome.message, errors: outcome.errors, requests: outcome.requests)
    }

    private struct Outcome {
        var status: TestCaseResult.Status
        var message: String
        var errors: [String]
        var requests: [RequestRecord]
    }

    private func execute(_ testCase: TestCase, userAgent: String?) async -> Outcome {
        let resources = Dictionary(definitions.resources.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let builder = RequestBuilder(wopiSrc: target.wopiSrc, accessToken: target.accessToken, accessTokenTTL: target.accessTokenTTL,
                                     resources: resources, userAgent: userAgent, proofSigner: proofSigner)
        let validator = ResponseValidator(resources: resources, schemas: definitions.schemas, policy: policy)
        var state = SavedState(accessToken: target.accessToken, wopiSrc: target.wopiSrc)
        var records: [RequestRecord] = []
        var outcome = Outcome(status: .passed, message: "", errors: [], requests: [])

        for definition in testCase.requests {
            if definition.kind == .delay {
                try? await Task.sleep(for: .seconds(Int(definition.delaySeconds ?? 0)))
                continue
            }
            let failMessage = testCase.failMessage ?? "\(definition.kind.rawValue) request failed."
            guard definition.kind.isExecutable else {
                let reason = "\(definition.kind.rawValue) is a coauthoring/incremental-transfer request, which this runner does not send"
                records.append(RequestRecord(name: definition.kind.rawValue, method: "", url: "", requestHeaders: [], status: 0,
                                             responseHeaders: [], responseBody: "", failures: [reason], isCleanup: false))
                outcome = Outcome(status: .failed, message: failMessage, errors: [reason], requests: [])
                break
            }
            let request: TransportRequest
            do {
                request = try builder.build(definition, state: state)
            } catch {
                records.append(RequestRecord(name: definition.kind.rawValue, method: "", url: "", requestHeaders: [], status: 0,
                                             responseHeaders: [], responseBody: "", failures: [error.reason], isCleanup: false))
                outcome = Outcome(status: .failed, message: failMessage, errors: [error.reason], requests: [])
                break
            }
            let response = await send(request, expectsText: definition.kind.expectsTextResponse)
            let failures = validator.failures(for: definition, response: response, state: state)
            records.append(record(definition, request, response, failures: failures, isCleanup: false))
            if !failures.isEmpty {
                outcome = Outcome(status: .failed, message: failMessage, errors: failures, requests: [])
                break
            }
            for saver in definition.stateSavers {
                state.save(Self.value(of: saver, in: response), for: saver.name)
            }
        }

        // Cleanup restores the host (unlocks, deletes what the case made); it runs even when the run is being
        // cancelled, so an interrupted run leaves no lock behind.
        let finalState = state
        records += await Task {
            var cleanup: [RequestRecord] = []
            for definition in testCase.cleanupRequests where definition.kind.isExecutable && definition.kind != .delay {
                guard let request = try? builder.build(definition, state: finalState) else {
                    cleanup.append(RequestRecord(name: definition.kind.rawValue, method: "", url: "", requestHeaders: [], status: 0,
                                                 responseHeaders: [], responseBody: "no content: request failed", failures: [], isCleanup: true))
                    continue
                }
                let response = await send(request, expectsText: definition.kind.expectsTextResponse)
                cleanup.append(record(definition, request, response, failures: [], isCleanup: true))
            }
            return cleanup
        }.value
        outcome.requests = records
        let redactor = SecretRedactor(knownSecrets: [target.accessToken])
        outcome.errors = outcome.errors.map(redactor.redact)
        return outcome
    }

    private func send(_ request: TransportRequest, expectsText: Bool) async -> ResponseSnapshot {
        do {
            return ResponseSnapshot(try await transport.send(request), expectsText: expectsText)
        } catch {
            return ResponseSnapshot(transportError: "\(error)")
        }
    }

    private func record(_ definition: RequestDefinition, _ request: TransportRequest, _ response: ResponseSnapshot,
                        failures: [String], isCleanup: Bool) -> RequestRecord {
        let body: String
        if response.body.isEmpty && response.transportError == nil {
            body = "No content"
        } else if let text = response.text {
            body = String(text.prefix(8000))
        } else {
            body = "Non text content"
        }
        let redactor = SecretRedactor(knownSecrets: [target.accessToken])
        return RequestRecord(name: definition.kind.rawValue, method: request.method, url: redactor.redact(request.url.absoluteString),
                             requestHeaders: request.headers.map { HeaderField($0.name, redactor.redact($0.value)) },
                             status: response.status, responseHeaders: response.headers.map { HeaderField($0.name, redactor.redact($0.value)) },
                             responseBody: redactor.redact(body), failures: failures.map(redactor.redact), isCleanup: isCleanup)
    }

    /// The value a `<State>` entry saves: a header, or a JSON path's scalar rendered as text.
    static func value(of saver: StateSaver, in response: ResponseSnapshot) -> String? {
        switch saver.source {
        case .header(let name):
            guard let value = response.header(name), !value.isEmpty else { return nil }
            return value
        case .jsonBody(let path):
            guard let text = response.text, !text.isEmpty, response.transportError == nil,
                  let document = try? JSONParser().parse(text), let jsonPath = JSONPath(path) else { return nil }
            return jsonPath.select(in: document)?.scalarText
        }
    }
}
