import DefinitionsTestSupport
import Foundation
import Testing
import WOPIHTTPClient
import WOPIValidator

/// The CI conformance run: Microsoft's validator definitions against a real `wopi serve`.
///
/// Runs WopiCore + OfficeNativeClient without the coauth and chunked-transfer groups, with X-WOPI-ItemVersion
/// required. The host checks proofs against a discovery XML `wopi proof keygen` made, and the runner signs every
/// request with the matching private keys, so the ProofKeys group runs too. Prints one line per case
/// and the totals line; any failed case fails the test.
@Suite(.serialized) struct ConformanceTests {
    /// Microsoft's TestCases.xml, as ``TestDefinitions`` provides it: found as `wopi validator` finds it
    /// ($WOPI_VALIDATOR_DIR, then the XDG data folder), else fetched once into that folder. Where it can be neither
    /// found nor fetched, each test that needs it fails with one line naming `wopi validator fetch`.
    static func testCasesURL() async throws -> URL {
        do {
            return try await TestDefinitions.testCasesURL()
        } catch {
            throw DefinitionsMissing(description: "\(error)")
        }
    }

    /// The one line a test fails with when Microsoft's definitions are not installed and cannot be fetched.
    struct DefinitionsMissing: Error, CustomStringConvertible {
        let description: String
    }

    static func json(_ result: WopiProcess.Result, _ what: String) throws -> [String: Any] {
        #expect(result.exitCode == 0, "\(what) failed: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "\(what) did not print a JSON object: \(result.stdout)")
    }

    @Test(.timeLimit(.minutes(15)))
    func microsoftValidatorPassesAgainstWopiServe() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }

        let keys = try await Self.makeProofKeys(in: data)
        let server = try await WopiServer.start(data: data, extraArguments: ["--discovery", keys.discovery.path])
        defer { server.stop() }
        let signer = try ValidatorProofSigner(currentKeyPEM: String(contentsOf: keys.current, encoding: .utf8),
                                              oldKeyPEM: String(contentsOf: keys.old, encoding: .utf8))
        #expect(signer.hasDistinctOldKey)

        let users = try await WopiProcess.run(["users", "add", "validator", "--password", "validator-password-1", "--data", data.path])
        #expect(users.exitCode == 0, "users add failed: \(users.stderr)")

        // An empty file: PutFile on an unlocked file is allowed only at 0 bytes, which some cases rely on.
        let document = data.appendingPathComponent("test.wopitest")
        try Data().write(to: document)
        let file = try Self.json(try await WopiProcess.run(["files", "add", document.path, "--owner", "validator", "--data", data.path]), "files add")
        let fileID = try #require(file["id"] as? String, "files add printed no id: \(file)")
        #expect((file["name"] as? String)?.hasSuffix(".wopitest") == true)

        let token = try Self.json(try await WopiProcess.run(["token", "--user", "validator", "--file", fileID, "--data", data.path]), "token")
        let accessToken = try #require(token["access_token"] as? String)
        let ttl = try #require((token["access_token_ttl"] as? NSNumber)?.int64Value)
        let wopiSrc = try #require(token["wopi_src"] as? String)
        #expect(wopiSrc.hasPrefix(server.baseURL), "wopi_src \(wopiSrc) does not point at the server on \(server.baseURL)")

        let report = try await Self.runValidator(wopiSrc: wopiSrc, accessToken: accessToken, accessTokenTTL: ttl, proofSigner: signer)
        #expect(report.totals.failed == 0)
        #expect(report.totals.passed >= 60, "only \(report.totals.passed) cases passed; the host should support nearly all of WopiCore")
        let proofCases = report.results.filter { $0.group == "ProofKeys" }
        #expect(proofCases.count == 7, "the ProofKeys group runs: \(proofCases.map(\.name))")
        #expect(proofCases.allSatisfy { $0.status == .passed }, "\(proofCases.map(\.summaryLine))")
        #expect(!report.excludedGroups.contains { $0.name == "ProofKeys" })
        #expect(report.results.count == 123 + 7)
        // SupportsAddActivities is true, so the AddActivities group runs instead of skipping.
        let activityCases = report.results.filter { $0.group == "AddActivities" }
        #expect(activityCases.count == 17, "the AddActivities group runs: \(activityCases.map(\.name))")
        #expect(activityCases.allSatisfy { $0.status == .passed }, "\(activityCases.map(\.summaryLine))")
        // ReadWrite share links run too. What still skips: the 12 cases for hosts without
        // PutRelativeFile or containers, by design: 118 passed, 0 failed, 12 skipped.
        let skippedGroups = Set(report.results.filter { $0.status == .skipped }.map(\.group))
        #expect(skippedGroups == ["PutRelativeFileUnsupported", "RenameFileIfCreateChildFileIsNotSupported"], "\(skippedGroups)")
        #expect(report.totals.skipped == 12 && report.totals.passed == 118, "\(report.totals.line)")
    }

    /// Runs the CI selection against a host, printing one line per case and the totals, and records
    /// every failed case with the request that failed.
    /// With `proofSigner`, every request is signed and the ProofKeys group runs too.
    static func runValidator(wopiSrc: String, accessToken: String, accessTokenTTL: Int64,
                             proofSigner: ValidatorProofSigner? = nil) async throws -> RunReport {
        let definitions = try ValidatorDefinitions.load(testCasesAt: try await testCasesURL())
        let target = try ConformanceTarget(wopiSrc: wopiSrc, accessToken: accessToken, accessTokenTTL: accessTokenTTL)
        let report = try await AsyncHTTPClientTransport.withTransport(maximumBodySize: ConformanceRunner.maximumResponseBodySize) { transport in
            let runner = ConformanceRunner(definitions: definitions, target: target,
                                           selection: proofSigner == nil ? .wopiKit : .wopiKitWithProofKeys, policy: .wopiKit,
                                           transport: transport, proofSigner: proofSigner)
            return await runner.run { result in print(result.summaryLine) }
        }
        for exclusion in report.excludedGroups { print("EXCLUDED \(exclusion.name): \(exclusion.reason)") }
        print(report.totals.line)
        for failure in report.failures {
            let request = failure.failingRequest
            Issue.record("""
                \(failure.summaryLine)
                  request: \(request.map { "\($0.method) \($0.url)" } ?? "none") -> HTTP \(request?.status ?? 0)
                  response headers: \(request?.responseHeaders.map(\.description).joined(separator: "; ") ?? "")
                  response body: \(request?.responseBody.prefix(500) ?? "")
                """)
        }
        return report
    }

    /// `wopi proof keygen` twice: an old key, then a current key that publishes the old one, and the discovery XML.
    static func makeProofKeys(in folder: URL) async throws -> (current: URL, old: URL, discovery: URL) {
        let old = folder.appendingPathComponent("proof-old.pem")
        let current = folder.appendingPathComponent("proof-current.pem")
        let discovery = folder.appendingPathComponent("discovery.xml")
        let first = try await WopiProcess.run(["proof", "keygen", "--private-key", old.path,
                                         "--discovery", folder.appendingPathComponent("discovery-old.xml").path])
        #expect(first.exitCode == 0, "keygen failed: \(first.stderr)")
        let second = try await WopiProcess.run(["proof", "keygen", "--private-key", current.path, "--old-private-key", old.path,
                                          "--discovery", discovery.path])
        #expect(second.exitCode == 0, "keygen failed: \(second.stderr)")
        return (current, old, discovery)
    }

    @Test("`wopi validate --proof-key --proof-key-old` runs and passes the ProofKeys group; without keys the host refuses everything",
          .timeLimit(.minutes(10)))
    func validateCommandSignsProofs() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-proofvalidate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let keys = try await Self.makeProofKeys(in: data)
        let server = try await WopiServer.start(data: data, extraArguments: ["--discovery", keys.discovery.path])
        defer { server.stop() }
        _ = try await WopiProcess.run(["users", "add", "validator", "--password", "validator-password-1", "--data", data.path])
        let document = data.appendingPathComponent("proof.wopitest")
        try Data().write(to: document)
        let file = try Self.json(try await WopiProcess.run(["files", "add", document.path, "--owner", "validator", "--data", data.path]), "files add")
        let fileID = try #require(file["id"] as? String)
        let token = try Self.json(try await WopiProcess.run(["token", "--user", "validator", "--file", fileID, "--data", data.path]), "token")
        let accessToken = try #require(token["access_token"] as? String)
        let wopiSrc = try #require(token["wopi_src"] as? String)
        let testcases = try await Self.testCasesURL().path
        let base = ["validate", "--wopi-src", wopiSrc, "--access-token", accessToken, "--testcases", testcases, "--group", "ProofKeys"]

        let signed = try await WopiProcess.run(base + ["--proof-key", keys.current.path, "--proof-key-old", keys.old.path], timeout: 300)
        #expect(signed.exitCode == 0, "validate failed:\n\(signed.stdout)\n\(signed.stderr)")
        let passes = signed.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS") && $0.contains("ProofKeys.") }
        #expect(passes.count == 7, "\(signed.stdout)")
        #expect(!signed.stdout.contains("EXCLUDED ProofKeys"))

        // Unsigned, the host answers 500 to every request, so the prerequisite fails and nothing passes.
        let unsigned = try await WopiProcess.run(base + ["--no-default-exclusions", "--category", "OfficeOnline"], timeout: 300)
        #expect(!unsigned.stdout.contains("PASS ProofKeys/"), "\(unsigned.stdout)")
        #expect(unsigned.stdout.split(separator: "\n").filter { $0.hasPrefix("SKIP ProofKeys/") }.count == 7, "\(unsigned.stdout)")

        let orphan = try await WopiProcess.run(base + ["--proof-key-old", keys.old.path])
        #expect(orphan.exitCode == 2 && orphan.stderr.contains("--proof-key-old needs --proof-key"))
        let unreadable = try await WopiProcess.run(base + ["--proof-key", data.appendingPathComponent("missing.pem").path])
        #expect(unreadable.exitCode == 2 && unreadable.stderrLines.count == 1 && unreadable.stderr.contains("--proof-key"))
    }
}
