import Foundation
import Testing
import WOPIValidator

/// The CI conformance run (issue 3, "Done means"): Microsoft's validator definitions against a real `wopi serve`.
///
/// Runs WopiCore + OfficeNativeClient without the coauth, chunked-transfer and ProofKeys groups, with
/// X-WOPI-ItemVersion required. Prints one line per case and the totals line; any failed case fails the test.
@Suite(.serialized) struct ConformanceTests {
    /// `../shared/wopi-validator/TestCases.xml`, found from this file or the working directory, or `$WOPI_VALIDATOR_DIR`.
    static func testCasesURL() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["WOPI_VALIDATOR_DIR"] {
            return URL(fileURLWithPath: override).appendingPathComponent("TestCases.xml")
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/wopi-validator/TestCases.xml"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("../shared/wopi-validator/TestCases.xml"),
        ]
        return try #require(candidates.first { FileManager.default.fileExists(atPath: $0.path) },
                            "TestCases.xml not found at \(candidates.map(\.path)); set WOPI_VALIDATOR_DIR")
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

        let server = try WopiServer.start(data: data)
        defer { server.stop() }

        let users = try WopiProcess.run(["users", "add", "validator", "--password", "validator-password-1", "--data", data.path])
        #expect(users.exitCode == 0, "users add failed: \(users.stderr)")

        // An empty file: PutFile on an unlocked file is allowed only at 0 bytes, which some cases rely on.
        let document = data.appendingPathComponent("test.wopitest")
        try Data().write(to: document)
        let file = try Self.json(try WopiProcess.run(["files", "add", document.path, "--owner", "validator", "--data", data.path]), "files add")
        let fileID = try #require(file["id"] as? String, "files add printed no id: \(file)")
        #expect((file["name"] as? String)?.hasSuffix(".wopitest") == true)

        let token = try Self.json(try WopiProcess.run(["token", "--user", "validator", "--file", fileID, "--data", data.path]), "token")
        let accessToken = try #require(token["access_token"] as? String)
        let ttl = try #require((token["access_token_ttl"] as? NSNumber)?.int64Value)
        let wopiSrc = try #require(token["wopi_src"] as? String)
        #expect(wopiSrc.hasPrefix(server.baseURL), "wopi_src \(wopiSrc) does not point at the server on \(server.baseURL)")

        let report = try await Self.runValidator(wopiSrc: wopiSrc, accessToken: accessToken, accessTokenTTL: ttl)
        #expect(report.totals.failed == 0)
        #expect(report.totals.passed >= 60, "only \(report.totals.passed) cases passed; the host should support nearly all of WopiCore")
        #expect(report.results.count == 123)
    }

    /// Runs the CI selection against a host, printing one line per case and the totals, and records
    /// every failed case with the request that failed.
    static func runValidator(wopiSrc: String, accessToken: String, accessTokenTTL: Int64) async throws -> RunReport {
        let definitions = try ValidatorDefinitions.load(testCasesAt: try testCasesURL())
        let target = try ConformanceTarget(wopiSrc: wopiSrc, accessToken: accessToken, accessTokenTTL: accessTokenTTL)
        let report = try await AsyncHTTPClientTransport.withTransport { transport in
            let runner = ConformanceRunner(definitions: definitions, target: target, selection: .wopiKit, policy: .wopiKit, transport: transport)
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
}
