import DefinitionsTestSupport
import Foundation
import TestSupport
import Testing
import WOPIValidator

/// How a test run gets Microsoft's definitions where none are found: ``TestDefinitions`` fetches the pinned ones
/// with `wopi validator fetch`'s code, once, into the XDG data folder. A local server with the repository's layout
/// stands in for GitHub.
@Suite struct TestDefinitionsTests {
    /// This process's environment without any definitions: no WOPI_VALIDATOR_DIR, fresh XDG and home folders in `folder`.
    static func environment(in folder: URL) -> [String: String] {
        ValidateDefinitionsTests.environment(dataHome: folder.appendingPathComponent("data"), home: folder.appendingPathComponent("home"))
    }

    static func installed(in folder: URL) -> URL {
        folder.appendingPathComponent("data/wopikit/wopi-validator")
    }

    /// What the folder above the installed definitions holds: nothing but `wopi-validator`, or nothing.
    static func entries(above installed: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: installed.deletingLastPathComponent().path)) ?? []
    }

    @Test("none found: the pinned definitions are fetched once, checksums verified, into the XDG folder, and used",
          .timeLimit(.minutes(5)))
    func fetchesOnce() async throws {
        let files = try await ValidateDefinitionsTests.repositoryFiles()
        let folder = try ValidateDefinitionsTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = Self.environment(in: folder)
        let installed = Self.installed(in: folder)

        // Four tests asking at once: one fetches, the others wait for it and find what it installed.
        let provisions = try await ValidateDefinitionsTests.withRepository(files) { url in
            try await withThrowingTaskGroup(of: TestDefinitions.Provision.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await TestDefinitions.provide(environment: environment, from: url.absoluteString).get() }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(provisions.filter(\.fetched).count == 1, "\(provisions.map(\.fetched))")
        for provision in provisions {
            #expect(provision.location.folder.standardizedFileURL.path == installed.standardizedFileURL.path)
            #expect(provision.location.source == .dataHome)
        }
        #expect(DefinitionsVerifier.mismatches(in: installed).isEmpty, "every installed file has its pinned SHA-256")
        #expect(try String(contentsOf: installed.appendingPathComponent("COMMIT"), encoding: .utf8) == PinnedDefinitions.commit + "\n")
        #expect(Self.entries(above: installed) == ["wopi-validator"], "no staging folder or lock file is left")
        let definitions = try ValidatorDefinitions.load(testCasesAt: try #require(provisions.first).location.testCasesURL)
        #expect(definitions.groups.count == 33)

        // The server is gone: a second run finds what the first installed and fetches nothing.
        let again = try await TestDefinitions.provide(environment: environment, from: url(ofRefusingPort: try LocalPort.free())).get()
        #expect(!again.fetched)
        #expect(again.location.testCasesURL.standardizedFileURL.path == installed.appendingPathComponent("TestCases.xml").standardizedFileURL.path)
    }

    @Test("a file whose SHA-256 differs: nothing is installed, and the one line names `wopi validator fetch`", .timeLimit(.minutes(5)))
    func corruptedFileInstallsNothing() async throws {
        var files = try await ValidateDefinitionsTests.repositoryFiles()
        let schema = "src/WopiValidator.Core/JsonSchemas/CoauthTableSchema.json"
        files[schema]?.append(contentsOf: Array("\n".utf8))
        let folder = try ValidateDefinitionsTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = Self.environment(in: folder)
        let installed = Self.installed(in: folder)

        let result = try await ValidateDefinitionsTests.withRepository(files) { url in
            await TestDefinitions.provide(environment: environment, from: url.absoluteString)
        }
        let line = try #require(Self.failure(result))
        #expect(line.contains("\(schema) has SHA-256 ") && line.contains("nothing was installed"), "\(line)")
        Self.expectOneLineNamingFetch(line)
        #expect(!FileManager.default.fileExists(atPath: installed.path))
        #expect(Self.entries(above: installed).isEmpty, "no partial folder is left: \(Self.entries(above: installed))")
    }

    @Test("no network: each test that needs them fails with one line naming `wopi validator fetch`; nothing is installed")
    func unreachableSourceInstallsNothing() async throws {
        let folder = try ValidateDefinitionsTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let installed = Self.installed(in: folder)
        let source = url(ofRefusingPort: try LocalPort.free())

        let result = await TestDefinitions.provide(environment: Self.environment(in: folder), from: source)
        let line = try #require(Self.failure(result))
        #expect(line.hasPrefix("Microsoft's WOPI validator definitions are not installed (searched \(installed.path))"), "\(line)")
        #expect(line.contains("the test run could not fetch them: \(source)/TestCases.xml"), "\(line)")
        Self.expectOneLineNamingFetch(line)
        #expect(!FileManager.default.fileExists(atPath: installed.path))
        #expect(Self.entries(above: installed).isEmpty, "\(Self.entries(above: installed))")
    }

    @Test("a WOPI_VALIDATOR_DIR without TestCases.xml is reported as it is, with nothing fetched")
    func emptyNamedFolderIsNotFetchedInto() async throws {
        let folder = try ValidateDefinitionsTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = Self.environment(in: folder)
        environment["WOPI_VALIDATOR_DIR"] = folder.path

        let result = await TestDefinitions.provide(environment: environment, from: url(ofRefusingPort: try LocalPort.free()))
        let line = try #require(Self.failure(result))
        #expect(line == "WOPI_VALIDATOR_DIR '\(folder.path)' holds no TestCases.xml; run `wopi validator fetch`, or set WOPI_VALIDATOR_DIR to a folder holding them")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data").path))
    }

    /// The failure's line, or `nil` (and a recorded issue) when the provision succeeded.
    static func failure(_ result: Result<TestDefinitions.Provision, TestDefinitions.Unavailable>) -> String? {
        switch result {
        case .success(let provision):
            Issue.record("definitions were provided from \(provision.location.folder.path)")
            return nil
        case .failure(let unavailable):
            return unavailable.description
        }
    }

    static func expectOneLineNamingFetch(_ line: String) {
        #expect(!line.contains("\n"), "one line: \(line)")
        #expect(line.hasSuffix("; run `wopi validator fetch`, or set WOPI_VALIDATOR_DIR to a folder holding them"), "\(line)")
    }

    /// A URL on 127.0.0.1 where nothing listens, so every connection is refused.
    func url(ofRefusingPort port: Int) -> String {
        "http://127.0.0.1:\(port)"
    }
}
