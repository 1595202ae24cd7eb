import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The whole integration story on real processes: `wopi serve`, `wopi users add`, `wopi files add`,
/// `wopi link`, then `wopi simulate` plays Office for iOS — signs in (through `wopi app-signin`, or
/// on the web pages), opens, locks, saves and unlocks — and `wopi parse` reads the passback.
@Suite(.serialized) struct RoundTripTests {
    static let username = "alice"
    static let password = "alice-password-1"
    static let clientID = "office-e2e-client"
    static let clientSecret = "office-e2e-secret-\(UUID().uuidString)"
    static let appScheme = "wopikit-e2e"
    static let passbackScheme = "clouddrive"
    static let context = "folder Q4 & notes/été"
    static let original = Data("original content of the quarterly report\n".utf8)

    /// A running host with one user and one file, and the invoke URI `wopi link` made for it.
    struct Fixture {
        let data: URL
        let server: WopiServer
        let fileID: String
        let wopiSrc: String
        let invokeURI: String

        var bootstrapper: String { "\(server.baseURL)/wopibootstrapper" }

        /// `wopi app-signin` as the provider's app, for `--app-signin-command`; the binary path is quoted for the shell.
        var appSigninCommand: String {
            get throws {
                let wopi = try WopiProcess.executableURL().path
                return "'\(wopi.replacingOccurrences(of: "'", with: "'\\''"))' app-signin --server \(server.baseURL) --username \(RoundTripTests.username) --password \(RoundTripTests.password)"
            }
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: data)
        }
    }

    static func json(_ result: WopiProcess.Result, _ what: String) throws -> [String: Any] {
        #expect(result.exitCode == 0, "\(what) failed: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "\(what) did not print a JSON object: \(result.stdout)")
    }

    static func makeFixture(mode: String, serveArguments: [String] = []) async throws -> Fixture {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let server: WopiServer
        do {
            server = try await WopiServer.start(data: data, extraArguments: [
                "--office-client-id", clientID, "--office-client-secret", clientSecret, "--ios-url-scheme", appScheme,
            ] + serveArguments)
        } catch {
            try? FileManager.default.removeItem(at: data)
            throw error
        }
        do {
            let user = try json(try await WopiProcess.run(["users", "add", username, "--password", password, "--data", data.path]), "users add")
            let userID = try #require(user["id"] as? String)
            let document = data.appendingPathComponent("Quarterly report.docx")
            try original.write(to: document)
            let file = try json(try await WopiProcess.run(["files", "add", document.path, "--owner", username, "--data", data.path]), "files add")
            let fileID = try #require(file["id"] as? String)
            let wopiSrc = try #require(file["wopiSrc"] as? String)
            #expect(wopiSrc.hasPrefix(server.baseURL), "wopiSrc \(wopiSrc) does not point at \(server.baseURL)")
            let link = try await WopiProcess.run([
                "link", "--app", "word", "--mode", mode, "--wopi-src", wopiSrc, "--service", "WOPIKit", "--user", userID,
                "--name", "Quarterly report.docx", "--source", "app", "--passback", passbackScheme, "--context", context,
            ])
            #expect(link.exitCode == 0, "link failed: \(link.stderr)")
            let invoke = link.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return Fixture(data: data, server: server, fileID: fileID, wopiSrc: wopiSrc, invokeURI: invoke)
        } catch {
            server.stop()
            try? FileManager.default.removeItem(at: data)
            throw error
        }
    }

    /// What the host holds for the file, read over WOPI with a token `wopi token` mints.
    struct StoredFile {
        let content: Data
        let version: String
        let lock: String?
    }

    static func stored(_ fixture: Fixture) async throws -> StoredFile {
        let token = try json(try await WopiProcess.run(["token", "--user", username, "--file", fixture.fileID, "--data", fixture.data.path]), "token")
        let accessToken = try #require(token["access_token"] as? String)
        let query = "access_token=" + (accessToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? accessToken)

        var info = HTTPClientRequest(url: "\(fixture.wopiSrc)?\(query)")
        info.method = .GET
        let infoResponse = try await HTTPClient.shared.execute(info, timeout: .seconds(30))
        #expect(infoResponse.status.code == 200)
        let infoBody = try await infoResponse.body.collect(upTo: 1 << 20)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(infoBody.readableBytesView)) as? [String: Any])
        let version = try #require(object["Version"] as? String)

        var get = HTTPClientRequest(url: "\(fixture.wopiSrc)/contents?\(query)")
        get.method = .GET
        let getResponse = try await HTTPClient.shared.execute(get, timeout: .seconds(30))
        #expect(getResponse.status.code == 200)
        let content = Data(try await getResponse.body.collect(upTo: 16 << 20).readableBytesView)

        var getLock = HTTPClientRequest(url: "\(fixture.wopiSrc)?\(query)")
        getLock.method = .POST
        getLock.headers.add(name: "X-WOPI-Override", value: "GET_LOCK")
        let lockResponse = try await HTTPClient.shared.execute(getLock, timeout: .seconds(30))
        #expect(lockResponse.status.code == 200)
        _ = try await lockResponse.body.collect(upTo: 1 << 16)
        return StoredFile(content: content, version: version, lock: lockResponse.headers.first(name: "X-WOPI-Lock"))
    }

    /// `wopi parse` of the printed passback: a passback to our scheme, nothing pending, the original context.
    static func checkPassback(_ line: String, _ fixture: Fixture) async throws {
        let parsed = try json(try await WopiProcess.run(["parse", line]), "parse")
        #expect(parsed["kind"] as? String == "passback")
        #expect(parsed["scheme"] as? String == passbackScheme)
        #expect(parsed["uploadPending"] as? Bool == false)
        #expect(parsed["context"] as? String == context)
        #expect(parsed["url"] as? String == fixture.wopiSrc)
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test("edit with app-to-app sign-in through `wopi app-signin`: the new content is stored, Version changed, unlocked",
          .timeLimit(.minutes(5)))
    func editWithAppToAppSignIn() async throws {
        let fixture = try await Self.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let before = try await Self.stored(fixture)
        let replacement = fixture.data.appendingPathComponent("new-content.bin")
        let newContent = Data("the edited report, saved by the simulated Word \(UUID().uuidString)\n".utf8)
        try newContent.write(to: replacement)

        let run = try await WopiProcess.run([
            "simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper, "--app-signin-command", try fixture.appSigninCommand,
            "--client-id", Self.clientID, "--client-secret", Self.clientSecret, "--replace-with", replacement.path,
        ], timeout: 180)
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)\nserver log:\n\(fixture.server.log)")
        let output = Self.lines(run.stdout)
        for step in ["Invoke URI", "Bootstrapper challenge", "App-to-app sign-in", "Token exchange", "Bootstrap", "GetNewAccessToken",
                     "CheckFileInfo", "GetLock", "RefreshLock with a made-up lock", "Lock", "GetFile", "PutFile",
                     "CheckFileInfo after PutFile", "Unlock", "Passback"] {
            #expect(output.contains { $0.hasPrefix("[ok]   \(step):") }, "no passed '\(step)' line in:\n\(run.stdout)")
        }
        #expect(!output.contains { $0.contains("Web sign-in") })
        let last = try #require(output.last)
        try await Self.checkPassback(last, fixture)

        let after = try await Self.stored(fixture)
        #expect(after.content == newContent)
        #expect(after.version != before.version)
        #expect(after.lock == "")
    }

    @Test("edit with web sign-in: the simulator's deterministic change is stored, Version changed, unlocked",
          .timeLimit(.minutes(5)))
    func editWithWebSignIn() async throws {
        let fixture = try await Self.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let before = try await Self.stored(fixture)

        let run = try await WopiProcess.run([
            "simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper, "--username", Self.username, "--password", Self.password,
            "--client-id", Self.clientID, "--client-secret", Self.clientSecret,
        ], timeout: 180)
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)\nserver log:\n\(fixture.server.log)")
        let output = Self.lines(run.stdout)
        #expect(output.contains { $0.hasPrefix("[ok]   Web sign-in:") }, "no web sign-in line in:\n\(run.stdout)")
        try await Self.checkPassback(try #require(output.last), fixture)

        let after = try await Self.stored(fixture)
        #expect(after.content.starts(with: Self.original) && after.content.count > Self.original.count)
        #expect(after.content.suffix(40) == Data("Edited by the WOPIKit Office simulator.\n".utf8))
        #expect(after.version != before.version)
        #expect(after.lock == "")
    }

    @Test("the issue's minimal form works when the host and the simulator share WOPI_OFFICE_CLIENT_ID / _SECRET",
          .timeLimit(.minutes(5)))
    func minimalFormWithSharedEnvironment() async throws {
        let fixture = try await Self.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let before = try await Self.stored(fixture)
        let environment = ["WOPI_OFFICE_CLIENT_ID": Self.clientID, "WOPI_OFFICE_CLIENT_SECRET": Self.clientSecret]
        let run = try await WopiProcess.run(["simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper,
                                       "--username", Self.username, "--password", Self.password],
                                      environment: environment, timeout: 180)
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)")
        try await Self.checkPassback(try #require(Self.lines(run.stdout).last), fixture)
        #expect(try await Self.stored(fixture).version != before.version)

        // Without the shared registration the token exchange is refused, and the simulator says where.
        let mismatched = try await WopiProcess.run(["simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper,
                                              "--username", Self.username, "--password", Self.password],
                                             environment: ["WOPI_OFFICE_CLIENT_ID": Self.clientID, "WOPI_OFFICE_CLIENT_SECRET": "wrong"],
                                             timeout: 180)
        #expect(mismatched.exitCode == 1)
        #expect(mismatched.stderr.contains("Token exchange"), "names the failing step: \(mismatched.stderr)")
    }

    @Test("view mode takes no lock and writes nothing; --json prints one object per step", .timeLimit(.minutes(5)))
    func viewMode() async throws {
        let fixture = try await Self.makeFixture(mode: "view")
        defer { fixture.stop() }
        let before = try await Self.stored(fixture)

        let run = try await WopiProcess.run([
            "simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper, "--username", Self.username, "--password", Self.password,
            "--client-id", Self.clientID, "--client-secret", Self.clientSecret, "--json",
        ], timeout: 180)
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)\nserver log:\n\(fixture.server.log)")
        let objects = try Self.lines(run.stdout).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON line: \(line)")
        }
        let outcomes = Dictionary(objects.compactMap { object in
            (object["step"] as? String).map { ($0, object["outcome"] as? String ?? "") }
        }, uniquingKeysWith: { first, _ in first })
        #expect(outcomes["lock"] == "skipped" && outcomes["put-file"] == "skipped" && outcomes["unlock"] == "skipped")
        #expect(outcomes["get-file"] == "passed" && outcomes["refresh-lock-probe"] == "passed" && outcomes["web-signin"] == "passed")
        let passback = try #require(objects.last?["passback"] as? String)
        try await Self.checkPassback(passback, fixture)

        let after = try await Self.stored(fixture)
        #expect(after.content == Self.original)
        #expect(after.version == before.version)
        #expect(after.lock == "")
    }

    @Test("a wrong password stops at web sign-in: exit 1, the step and the host's answer on stderr", .timeLimit(.minutes(5)))
    func wrongPassword() async throws {
        let fixture = try await Self.makeFixture(mode: "edit")
        defer { fixture.stop() }
        let run = try await WopiProcess.run([
            "simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper, "--username", Self.username, "--password", "not-the-password",
            "--client-id", Self.clientID, "--client-secret", Self.clientSecret,
        ], timeout: 180)
        #expect(run.exitCode == 1)
        #expect(run.stderr.contains("Web sign-in failed"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("host answered: HTTP"), "stderr: \(run.stderr)")
        #expect(Self.lines(run.stdout).last?.hasPrefix("[FAIL] Web sign-in:") == true, "stdout: \(run.stdout)")
        #expect(try await Self.stored(fixture).content == Self.original)
    }

    @Test("invalid input exits 2 with one line on stderr")
    func invalidInput() async throws {
        let cases: [([String], String)] = [
            (["simulate", "not a uri", "--bootstrapper", "http://127.0.0.1:1/wopibootstrapper", "--username", "a", "--password", "b"], "invoke URI"),
            (["simulate", "ms-word:ofe|u|http://127.0.0.1:1/wopi/files/x|d|S|e|U|n|a.docx|a|App", "--bootstrapper", "ftp://x",
              "--username", "a", "--password", "b"], "--bootstrapper"),
            (["simulate", "ms-word:ofe|u|http://127.0.0.1:1/wopi/files/x|d|S|e|U|n|a.docx|a|App", "--bootstrapper",
              "http://127.0.0.1:1/wopibootstrapper"], "--app-signin-command"),
            (["simulate", "ms-word:ofe|u|http://127.0.0.1:1/wopi/files/x|d|S|e|U|n|a.docx|a|App", "--bootstrapper",
              "http://127.0.0.1:1/wopibootstrapper", "--username", "a"], "--password"),
            (["simulate", "ms-word:ofe|u|http://127.0.0.1:1/wopi/files/x|d|S|e|U|n|a.xlsx|a|App", "--bootstrapper",
              "http://127.0.0.1:1/wopibootstrapper", "--username", "a", "--password", "b"], "a.xlsx"),
        ]
        for (arguments, mentioned) in cases {
            let run = try await WopiProcess.run(arguments)
            #expect(run.exitCode == 2, "\(arguments): exit \(run.exitCode), stderr \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(mentioned), "\(arguments): stderr \(run.stderr)")
        }
    }
}
