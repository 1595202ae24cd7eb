import ArgumentParser
import Foundation
import OfficeSimulator
import WOPICore
import WOPIHTTPClient
import WOPIValidator

/// `wopi validate`: run Microsoft's WOPI validator definitions against a WOPI host.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Run Microsoft's WOPI validator test cases (TestCases.xml) against a WOPI host.",
        discussion: """
            Point it at one file on the host: its WOPISrc and an access token for a user who may write it. The \
            file's name must end in .wopitest. Tests lock, write, rename and create files next to it.

            Each test case prints one line as it finishes (PASS, FAIL or SKIP with the reason), and the run ends \
            with the totals line "N passed, N failed, N skipped". A FAIL line shows the HTTP status and the start of \
            the body answered. A case is skipped when one of its group's prerequisite cases does not pass (for \
            example, the host does not claim the feature). A prerequisite every host must pass (WopiValidatorPrereq: \
            CheckFileInfo as the schema requires) that fails is itself a failure: printed once, with how many \
            cases it kept from running.

            Definitions: --testcases, else $WOPI_VALIDATOR_DIR, else $XDG_DATA_HOME/wopikit/wopi-validator \
            (default ~/.local/share/wopikit/wopi-validator), else share/wopikit/wopi-validator beside the binary's \
            folder. `wopi validator fetch` installs them; `wopi validator show` says which are used.

            Tokens never show: access tokens, Bearer credentials and token, code, secret and password fields are \
            masked in every line and in --json.

            By default the WopiCore and OfficeNativeClient categories run, without the coauthoring, incremental \
            file transfer and ProofKeys groups, and the verdict is the one Microsoft's validator gives on the same \
            definitions: X-WOPI-ItemVersion is checked where a host sends it, as the definitions and the WOPI docs \
            leave it optional. Office for iOS needs it on GetFile, PutFile, Lock and Unlock (`wopi check-host` \
            checks that); --strict-item-version requires it wherever a test checks it.

            --junit FILE writes the cases as JUnit XML, in the format of `wopi check-host --junit` (one testsuite \
            "validator", one testcase per case, prerequisite failures as "prerequisite/<name>").

            Proof keys: Microsoft's runner cannot sign proofs, so hosts exclude the ProofKeys group. With \
            --proof-key (and --proof-key-old) every request carries X-WOPI-TimeStamp, X-WOPI-Proof and \
            X-WOPI-ProofOld signed as Office signs them, and with both keys the ProofKeys group runs. Run the \
            host with the matching discovery XML:
              wopi proof keygen --private-key old.pem --discovery /dev/null
              wopi proof keygen --private-key current.pem --old-private-key old.pem --discovery discovery.xml
              wopi serve --discovery discovery.xml …
              wopi validate --wopi-src … --access-token … --proof-key current.pem --proof-key-old old.pem

            Exit status: 0 when no case failed, 1 when any failed, 2 for invalid input. A closed stdout or \
            stderr (`wopi validate … | head -1`) stops the run quietly with 1; SIGINT and SIGTERM stop it after the \
            running case's cleanup requests, with 128 + the signal's number.
            """
    )

    @Option(help: "The WOPISrc URL of the .wopitest file to test, e.g. http://127.0.0.1:8080/wopi/files/ID.")
    var wopiSrc: String

    @Option(help: "An access token for that file.")
    var accessToken: String

    @Option(help: "access_token_ttl: the token's expiry in milliseconds since the Unix epoch.")
    var accessTokenTtl: Int64 = 0

    @Option(help: ArgumentHelp(
        "Path to TestCases.xml; its JsonSchemas folder must sit beside it.",
        discussion: "Default: found as `wopi validator show` says."))
    var testcases: String?

    @Option(name: .customLong("category"), help: ArgumentHelp(
        "A test category to run (repeatable): WopiCore, OfficeNativeClient, OfficeOnline, WopiCoauth or All.",
        discussion: "WopiCore cases always run. Default: WopiCore and OfficeNativeClient."))
    var categories: [String] = []

    @Option(name: .customLong("exclude-group"), help: "A test group to leave out (repeatable), in addition to the default exclusions.")
    var excludedGroups: [String] = []

    @Flag(help: "Do not apply the default exclusions (coauth, incremental transfer, ProofKeys).")
    var noDefaultExclusions = false

    @Option(name: .customLong("group"), help: "Run only this test group (repeatable).")
    var groups: [String] = []

    @Option(name: .customLong("test"), help: "Run only this test case (repeatable).")
    var tests: [String] = []

    @Flag(help: "Also run groups marked HasDelay, which sleep for minutes.")
    var includeDelayed = false

    @Flag(help: "Require X-WOPI-ItemVersion wherever a test checks it, as Office for iOS does (Microsoft's definitions leave it optional).")
    var strictItemVersion = false

    @Flag(help: ArgumentHelp("Accept a missing X-WOPI-ItemVersion, as Microsoft's runner does: the default.", visibility: .hidden))
    var lenientItemVersion = false

    @Option(help: ArgumentHelp("Write the cases as JUnit XML to this file, as `wopi check-host --junit` does.", valueName: "file"))
    var junit: String?

    @OptionGroup var requests: HostRequestOptions

    @Flag(help: "Print the whole report as one JSON object on stdout (per-case lines go to stderr).")
    var json = false

    @Option(name: .customLong("proof-key"), help: ArgumentHelp(
        "PEM file with the WOPI client's current private proof key: every request is signed with it.", valueName: "pem"))
    var proofKey: String?

    @Option(name: .customLong("proof-key-old"), help: ArgumentHelp(
        "PEM file with the client's old private proof key (X-WOPI-ProofOld). With --proof-key, the ProofKeys group runs.",
        valueName: "pem"))
    var proofKeyOld: String?

    func validate() throws {
        _ = try target()
        _ = try selectedCategories()
        if proofKeyOld != nil, proofKey == nil { throw ValidationError("--proof-key-old needs --proof-key") }
        _ = try proofSigner()
        if strictItemVersion, lenientItemVersion { throw ValidationError("--strict-item-version and --lenient-item-version contradict each other") }
        if let junit { try JUnitReport.checkWritable(junit) }
        _ = try DefinitionsLookup.locate(testcases: testcases)
    }

    func run() async throws {
        let definitions = try DefinitionsLookup.load(testcases: testcases)
        let signer = try proofSigner()
        let signsProofKeys = signer?.hasDistinctOldKey ?? false
        var excluded = noDefaultExclusions ? [] : ExcludedGroup.wopiKitDefaults
        if signsProofKeys { excluded.removeAll { $0 == ExcludedGroup.proofKeys } }
        for name in excludedGroups where !excluded.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            guard definitions.group(named: name) != nil else { throw ValidationError("--exclude-group: no test group named '\(name)'") }
            excluded.append(ExcludedGroup(name: name, reason: "excluded with --exclude-group"))
        }
        for name in groups where definitions.group(named: name) == nil {
            throw ValidationError("--group: no test group named '\(name)'")
        }
        var selection = RunSelection(categories: try selectedCategories(), excludedGroups: excluded, onlyGroups: Set(groups),
                                     onlyCases: Set(tests), includesDelayedGroups: includeDelayed)
        if signsProofKeys { selection.groupsInAnyCategory = [ExcludedGroup.proofKeys.name] }
        let policy: ValidationPolicy = strictItemVersion ? .wopiKit : .original
        let target = try target()
        let useJSON = json

        let tests = self.tests
        let report = try await Interruption.run { [selection] in
            try await requests.withTransport { transport in
                let runner = ConformanceRunner(definitions: definitions, target: target, selection: selection, policy: policy, transport: transport,
                                               proofSigner: signer)
                if !tests.isEmpty, runner.plannedCases().isEmpty {
                    throw ValidationError("--test: no selected test case is named \(tests.joined(separator: ", "))")
                }
                for exclusion in selection.excludedGroups where definitions.group(named: exclusion.name) != nil {
                    Self.emit("EXCLUDED \(exclusion.name): \(exclusion.reason)", toStandardError: useJSON)
                }
                return await runner.run(progress: { result in
                    Self.emit(result.summaryLine, toStandardError: useJSON)
                }, prerequisiteFailed: { failure in
                    Self.emit(failure.summaryLine, toStandardError: useJSON)
                })
            }
        }

        for failure in report.prerequisiteFailures {
            Self.emit(failure.blockedLine, toStandardError: json)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let document = JSONReport(summary: report.totals.line, totals: report.totals, excludedGroups: report.excludedGroups,
                                      prerequisiteFailures: report.prerequisiteFailures, results: report.results)
            Console.line(String(decoding: try encoder.encode(document), as: UTF8.self))
        }
        if let junit { try JUnitReport(checks: Self.checks(report), tool: "validate", redact: Console.redact).write(to: junit) }
        Self.emit(report.totals.line, toStandardError: json)
        if report.totals.failed > 0 { throw ExitCode(1) }
    }

    /// The run as checks of the family "validator", for `--junit`: each case by `group/name`, each failed
    /// prerequisite by `prerequisite/name`, as `wopi check-host` reports them.
    static func checks(_ report: RunReport) -> [ReadinessCheck] {
        let prerequisites = report.prerequisiteFailures.map {
            ReadinessCheck(suite: "validator", name: "prerequisite/\($0.name)", outcome: .failed, detail: $0.detail)
        }
        return prerequisites + report.results.map { result in
            let outcome: ReadinessCheck.Outcome = switch result.status {
            case .passed: .passed
            case .failed: .failed
            case .skipped: .skipped
            }
            return ReadinessCheck(suite: "validator", name: "\(result.group)/\(result.name)", outcome: outcome, detail: result.detail)
        }
    }

    /// The signer for `--proof-key` / `--proof-key-old`, or `nil` without them.
    private func proofSigner() throws -> ValidatorProofSigner? {
        guard let proofKey else { return nil }
        func read(_ path: String, _ option: String) throws -> String {
            do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw ValidationError("\(option) '\(path)' cannot be read: \(error.localizedDescription)")
            }
        }
        do {
            return try ValidatorProofSigner(currentKeyPEM: try read(proofKey, "--proof-key"),
                                            oldKeyPEM: try proofKeyOld.map { try read($0, "--proof-key-old") })
        } catch let error as ProofKeyError {
            throw ValidationError("--proof-key: \(error.description)")
        }
    }

    private func target() throws -> ConformanceTarget {
        do {
            return try ConformanceTarget(wopiSrc: wopiSrc, accessToken: accessToken, accessTokenTTL: accessTokenTtl)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private func selectedCategories() throws -> Set<TestCategory> {
        guard !categories.isEmpty else { return [.wopiCore, .officeNativeClient] }
        var selected = Set<TestCategory>()
        for name in categories {
            guard let category = TestCategory(name: name) else {
                throw ValidationError("unknown --category '\(name)'; expected one of \(TestCategory.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            selected.insert(category)
        }
        return selected
    }

    private static func emit(_ line: String, toStandardError: Bool) {
        Console.line(line, to: toStandardError ? .standardError : .standardOutput)
    }

    /// The `--json` document.
    private struct JSONReport: Encodable {
        let summary: String
        let totals: RunReport.Totals
        let excludedGroups: [ExcludedGroup]
        let prerequisiteFailures: [PrerequisiteFailure]
        let results: [TestCaseResult]
    }
}
