import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TestSupport
import Testing
import WOPIValidator

/// Where `wopi validate` gets Microsoft's definitions: `wopi validator fetch` from a server with the
/// repository's layout (here a local one), `wopi validator show`, and the one line when there are none.
@Suite(.serialized) struct ValidateDefinitionsTests {
    /// This process's environment without any definitions lookup, and a fresh XDG data folder.
    static func environment(dataHome: URL, home: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["WOPI_VALIDATOR_DIR"] = nil
        environment["XDG_DATA_HOME"] = dataHome.path
        environment["HOME"] = home.path
        return environment
    }

    static func run(_ arguments: [String], environment: [String: String]) async throws -> WopiProcess.Result {
        try await WopiProcess.run(arguments, environment: environment, timeout: 120)
    }

    /// The pinned files, read from the definitions the suite uses, by repository path.
    static func repositoryFiles() async throws -> [String: Data] {
        let folder = try await ConformanceTests.testCasesURL().deletingLastPathComponent()
        var files: [String: Data] = [:]
        for file in PinnedDefinitions.files {
            files[file.repositoryPath] = try Data(contentsOf: folder.appendingPathComponent(file.installedPath))
        }
        return files
    }

    /// Serves `files` at their repository paths, as raw.githubusercontent.com does, from a process of its own.
    static func withRepository<T: Sendable>(_ files: [String: Data], _ body: @Sendable (URL) async throws -> T) async throws -> T {
        try await StaticFileServer.serve(Dictionary(uniqueKeysWithValues: files.map { (String($0.key.drop { $0 == "/" }), $0.value) }), body)
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-definitions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("fetch --from a local server installs the pinned files into the XDG folder; show and validate find them",
          .timeLimit(.minutes(5)))
    func fetchInstallsAndShowFinds() async throws {
        let files = try await Self.repositoryFiles()
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = Self.environment(dataHome: folder.appendingPathComponent("data"), home: folder.appendingPathComponent("home"))
        let installed = folder.appendingPathComponent("data/wopikit/wopi-validator")

        let fetch = try await Self.withRepository(files) { url in
            try await Self.run(["validator", "fetch", "--from", url.absoluteString], environment: environment)
        }
        #expect(fetch.exitCode == 0, "\(fetch.stdout)\n\(fetch.stderr)")
        #expect(fetch.stdout.contains("installed 8 files of microsoft/wopi-validator-core at \(PinnedDefinitions.commit) (SHA-256 verified) into \(installed.path)"),
                "\(fetch.stdout)")
        for file in PinnedDefinitions.files {
            let bytes = try Data(contentsOf: installed.appendingPathComponent(file.installedPath))
            #expect(bytes == files[file.repositoryPath], "\(file.installedPath) differs from the served file")
        }
        #expect(try String(contentsOf: installed.appendingPathComponent("COMMIT"), encoding: .utf8) == PinnedDefinitions.commit + "\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: installed.deletingLastPathComponent().path)
        #expect(leftovers == ["wopi-validator"], "staging folders are gone: \(leftovers)")

        let show = try await Self.run(["validator", "show"], environment: environment)
        #expect(show.exitCode == 0, "\(show.stderr)")
        #expect(Self.lines(show.stdout) == [
            "folder: \(installed.path) (from the XDG data folder)",
            "commit: \(PinnedDefinitions.commit) (\(PinnedDefinitions.version)); every file matches its SHA-256",
        ], "\(show.stdout)")

        // validate finds them without --testcases: it gets as far as the (unreachable) host.
        let validate = try await Self.run(["validate", "--wopi-src", "http://127.0.0.1:9/wopi/files/x.wopitest", "--access-token", "tok-1234",
                                           "--test", "files.GetFileReturnsVersion"], environment: environment)
        #expect(validate.exitCode == 1, "\(validate.stdout)\n\(validate.stderr)")
        #expect(Self.lines(validate.stdout).last == "0 passed, 1 failed, 1 skipped", "\(validate.stdout)")
    }

    @Test("a file whose SHA-256 differs is refused, and nothing is installed or replaced", .timeLimit(.minutes(5)))
    func corruptedFileIsRefused() async throws {
        var files = try await Self.repositoryFiles()
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = Self.environment(dataHome: folder.appendingPathComponent("data"), home: folder.appendingPathComponent("home"))
        let installed = folder.appendingPathComponent("data/wopikit/wopi-validator")
        let schema = "src/WopiValidator.Core/JsonSchemas/CsppCheckFileInfoSchema.json"
        files[schema]?.append(contentsOf: Array(" ".utf8))

        let corrupted = try await Self.withRepository(files) { url in
            try await Self.run(["validator", "fetch", "--from", url.absoluteString + "/"], environment: environment)
        }
        #expect(corrupted.exitCode == 1, "\(corrupted.stdout)\n\(corrupted.stderr)")
        #expect(corrupted.stderrLines.count == 1, "\(corrupted.stderr)")
        #expect(corrupted.stderr.contains("\(schema) has SHA-256 ") && corrupted.stderr.contains("nothing was installed"), "\(corrupted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: installed.path))
        let parent = installed.deletingLastPathComponent().path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).isEmpty, "no staging folder is left in \(parent)")

        // Over a good installation, a refused fetch changes nothing.
        let good = try await Self.withRepository(try await Self.repositoryFiles()) { url in
            try await Self.run(["validator", "fetch", "--from", url.absoluteString], environment: environment)
        }
        #expect(good.exitCode == 0, "\(good.stderr)")
        let again = try await Self.withRepository(files) { url in
            try await Self.run(["validator", "fetch", "--from", url.absoluteString], environment: environment)
        }
        #expect(again.exitCode == 1)
        #expect(DefinitionsVerifier.mismatches(in: installed).isEmpty, "the good installation was kept")
    }

    @Test("no definitions: validate, check-host and show exit 2 with one line naming `wopi validator fetch`; a foreign --ref needs consent")
    func missingDefinitions() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = Self.environment(dataHome: folder.appendingPathComponent("data"), home: folder.appendingPathComponent("home"))
        for arguments in [
            ["validate", "--wopi-src", "http://127.0.0.1:9/wopi/files/1", "--access-token", "tok-1234"],
            ["check-host", "--wopi-src", "http://127.0.0.1:9/wopi/files/1", "--access-token", "tok-1234"],
            ["validator", "show"],
        ] {
            let run = try await Self.run(arguments, environment: environment)
            #expect(run.exitCode == 2, "\(arguments): \(run.stdout)\n\(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains("run `wopi validator fetch`"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(folder.appendingPathComponent("data/wopikit/wopi-validator").path), "names where it looked: \(run.stderr)")
        }
        let foreign = try await Self.run(["validator", "fetch", "--ref", "main"], environment: environment)
        #expect(foreign.exitCode == 2 && foreign.stderr.contains("--insecure-skip-checksums"), "\(foreign.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data").path))
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
