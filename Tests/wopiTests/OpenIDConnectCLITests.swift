import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import OfficeURLScheme
import Testing
import TestSupport

/// `wopi serve --oidc-*`, `wopi doctor --oidc-issuer` and `wopi users link|list` through the real binary, against a
/// real OpenID Connect provider (django-oidc-provider) and stand-in issuers with a planted fault.
@Suite("OpenID Connect through the CLI")
struct OpenIDConnectCLITests {
    static func temporaryFolder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wopi-oidc-\(name)-\(UUID().uuidString)")
    }

    /// A stand-in issuer whose discovery document names another issuer, `documentIssuer`. It is served by a process of its
    /// own (the suite's static file server), so it answers within the CLI's 10 s start-up bound however busy the suite is;
    /// the issuer is checked before any endpoint is asked, so the endpoints point nowhere.
    static func standInIssuer<T: Sendable>(documentIssuer: String, _ body: @Sendable (String) async throws -> T) async throws -> T {
        let nowhere = "http://127.0.0.1:1"
        let document: [String: String] = ["issuer": documentIssuer, "authorization_endpoint": nowhere + "/authorize",
                                          "token_endpoint": nowhere + "/token", "jwks_uri": nowhere + "/jwks"]
        let files = [".well-known/openid-configuration": try JSONSerialization.data(withJSONObject: document)]
        return try await StaticFileServer.serve(files) { base in try await body(base.absoluteString) }
    }

    @Test("an issuer that cannot be reached, or whose document names another issuer, stops serve and doctor with one line and exit 2")
    func unusableIssuers() async throws {
        let data = Self.temporaryFolder("refused")
        defer { try? FileManager.default.removeItem(at: data) }
        let nobody = "http://127.0.0.1:\(try WopiServer.freePort())"
        let unreachable = try await WopiProcess.run(["serve", "--port", "0", "--data", data.path, "--oidc-issuer", nobody, "--oidc-client-id", "wopikit"])
        #expect(unreachable.exitCode == 2 && unreachable.stderrLines.count == 1, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("cannot be reached") && unreachable.stderr.contains(nobody + "/.well-known/openid-configuration"))
        #expect(!FileManager.default.fileExists(atPath: data.path), "the start stopped before any storage was made")

        let doctor = try await WopiProcess.run(["doctor", "--oidc-issuer", nobody])
        #expect(doctor.exitCode == 2 && doctor.stderrLines.count == 1 && doctor.stderr.contains("cannot be reached"), "\(doctor.stderr)")

        try await Self.standInIssuer(documentIssuer: "https://someone-else.example") { issuer in
            let mismatch = try await WopiProcess.run(["serve", "--port", "0", "--data", data.path, "--oidc-issuer", issuer, "--oidc-client-id", "wopikit"])
            #expect(mismatch.exitCode == 2 && mismatch.stderrLines.count == 1, "\(mismatch.stderr)")
            #expect(mismatch.stderr.contains("names another issuer") && mismatch.stderr.contains("https://someone-else.example"), "\(mismatch.stderr)")
            let doctor = try await WopiProcess.run(["doctor", "--oidc-issuer", issuer])
            #expect(doctor.exitCode == 2 && doctor.stderr.contains("names another issuer"), "\(doctor.stderr)")
        }
        // The secret is never taken from the command line itself.
        let secretOnCommandLine = try await WopiProcess.run(["serve", "--data", data.path, "--oidc-issuer", nobody, "--oidc-client-id", "x",
                                                            "--oidc-client-secret", "s3cret"])
        #expect(secretOnCommandLine.exitCode == 2 && secretOnCommandLine.stderr.contains("oidc-client-secret"))
    }

    @Test("serve with a real provider (flags, or WOPI_OIDC_* and the file's keys) shows Sign in with the provider and never prints the secret; doctor says it is usable",
          .timeLimit(.minutes(5)))
    func realProvider() async throws {
        let provider = try await OpenIDProviderTestServer.start()
        defer { provider.stop() }
        let folder = Self.temporaryFolder("serve")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("secret")
        try Data((provider.clientSecret + "\n").utf8).write(to: secretFile)

        let doctor = try await WopiProcess.run(["doctor", "--oidc-issuer", provider.issuer, "--oidc-client-id", provider.clientID])
        #expect(doctor.exitCode == 0 && doctor.stdout.contains("usable") && doctor.stdout.contains("1 signing key"), "\(doctor.stdout) \(doctor.stderr)")

        let flags = ["--oidc-issuer", provider.issuer, "--oidc-client-id", provider.clientID, "--oidc-client-secret-file", secretFile.path,
                     "--oidc-name", "Contoso ID", "--oidc-only"]
        let server = try await WopiServer.start(data: folder.appendingPathComponent("data"), extraArguments: flags)
        let page = try await RawHTTPConnection.request(port: server.port, "GET", "/")
        #expect(page.text.contains("Sign in with Contoso ID") && !page.text.contains("type=\"password\""), "\(page.text)")
        let start = try await RawHTTPConnection.request(port: server.port, "GET", "/signin/oidc")
        let location = start.headers.first { $0.0.lowercased() == "location" }?.1 ?? ""
        #expect(start.status == 302 && location.hasPrefix(provider.issuer + "/authorize?"), "\(start.status) \(location)")
        #expect(location.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A\(server.port)%2Fsignin%2Foidc%2Fcallback"), "\(location)")
        let log = server.log
        server.stop()
        #expect(!log.contains(provider.clientSecret), "the client secret reached the output")

        // The same through the environment and the configuration file.
        let config = folder.appendingPathComponent("serve.json")
        try JSONSerialization.data(withJSONObject: ["oidc-name": "File ID", "oidc-client-secret-file": secretFile.path]).write(to: config)
        let port = try WopiServer.freePort()
        let configured = try WopiServer.launch(["--port", String(port), "--data", folder.appendingPathComponent("data").path, "--config", config.path],
                                               environment: ["WOPI_OIDC_ISSUER": provider.issuer, "WOPI_OIDC_CLIENT_ID": provider.clientID])
        defer { configured.stop() }
        try await configured.waitUntilListening(port: port)
        let configuredPage = try await RawHTTPConnection.request(port: port, "GET", "/")
        #expect(configuredPage.text.contains("Sign in with File ID") && configuredPage.text.contains("type=\"password\""), "\(configuredPage.text)")
    }

    @Test("""
        the provider's app answers Office's app-to-app sign-in with its token from the identity provider: no password, the \
        account made on first use, browse and token-refresh simulated through it; another app's token and a forged one are \
        refused and create nothing
        """, .timeLimit(.minutes(8)))
    func appToAppThroughTheIdentityProvider() async throws {
        let provider = try await OpenIDProviderTestServer.start()
        defer { provider.stop() }
        let folder = Self.temporaryFolder("app-to-app")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("secret")
        try Data(provider.clientSecret.utf8).write(to: secretFile)
        let officeSecret = "office-oidc-secret-\(UUID().uuidString)"
        let data = folder.appendingPathComponent("data")
        let server = try await WopiServer.start(data: data, extraArguments: [
            "--oidc-issuer", provider.issuer, "--oidc-client-id", provider.clientID, "--oidc-client-secret-file", secretFile.path, "--oidc-only",
            "--oidc-app-client-id", provider.appClientID,
            "--office-client-id", "office-oidc", "--office-client-secret", officeSecret, "--ios-url-scheme", "contoso",
        ])
        defer { server.stop() }

        func tokenFile(_ name: String, _ token: String) throws -> String {
            let file = folder.appendingPathComponent(name)
            try Data((token + "\n").utf8).write(to: file)
            return file.path
        }
        let appToken = try await provider.appToken(for: provider.appClientID)
        let otherAppToken = try await provider.appToken(for: provider.otherAppClientID)
        var forged = appToken
        forged.removeLast(4)
        forged += appToken.hasSuffix("AAAA") ? "BBBB" : "AAAA"
        let request = "contoso:client_id=office-oidc&response_type=code&scope=wopi&rs=enUS&app=word&action=act-7"

        for (name, token) in [("another app's token", otherAppToken), ("a forged token", forged)] {
            let refused = try await WopiProcess.run(["app-signin", request, "--server", server.baseURL,
                                                     "--identity-token-file", try tokenFile("refused", token)])
            #expect(refused.exitCode == 1, "\(name): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stdout.hasPrefix("ms-word-tp:error=access_denied") && refused.stdout.contains("action=act-7"), "\(name): \(refused.stdout)")
        }
        let before = try await WopiProcess.run(["users", "list", "--data", data.path])
        #expect(before.exitCode == 0 && !before.stdout.contains(provider.user), "the refused tokens created no account: \(before.stdout)")

        let appTokenFile = try tokenFile("app-token", appToken)
        let answered = try await WopiProcess.run(["app-signin", request, "--server", server.baseURL, "--identity-token-file", appTokenFile])
        #expect(answered.exitCode == 0, "\(answered.stderr)")
        let answer = try SignInResponse(string: answered.stdout.trimmingCharacters(in: .newlines))
        #expect(answer.action == "act-7" && answer.code != nil && answer.sessionContext != nil, "\(answered.stdout)")

        let users = try await WopiProcess.run(["users", "list", "--data", data.path])
        let person = users.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["subject"] as? String == provider.subject }
        #expect(person?["name"] as? String == provider.user && person?["issuer"] as? String == provider.issuer, "\(users.stdout)")

        // Office for iOS, simulated, signs in through the app for the person's own document.
        let document = folder.appendingPathComponent("Notes.docx")
        try Data("notes of the person the provider knows\n".utf8).write(to: document)
        let added = try await WopiProcess.run(["files", "add", document.path, "--owner", provider.user, "--data", data.path])
        let file = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any], "\(added.stderr)")
        let personID = try #require(person?["id"] as? String)
        let link = try await WopiProcess.run(["link", "--app", "word", "--mode", "edit", "--wopi-src", try #require(file["wopiSrc"] as? String),
                                              "--service", "WOPIKit", "--user", personID, "--name", "Notes.docx", "--source", "app"])
        #expect(link.exitCode == 0, "\(link.stderr)")
        let wopi = try WopiProcess.executableURL().path.replacingOccurrences(of: "'", with: "'\\''")
        let appCommand = "'\(wopi)' app-signin --server \(server.baseURL) --identity-token-file '\(appTokenFile)'"
        for scenario in ["browse", "token-refresh"] {
            let run = try await WopiProcess.run([
                "simulate", link.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--bootstrapper", server.baseURL + "/wopibootstrapper",
                "--app-signin-command", appCommand, "--client-id", "office-oidc", "--client-secret", officeSecret, "--scenario", scenario,
            ], timeout: 180)
            #expect(run.exitCode == 0, "\(scenario):\n\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("[ok]   App-to-app sign-in:") && !run.stdout.contains("Web sign-in"), "\(scenario): \(run.stdout)")
        }
        let log = server.log
        #expect(!log.contains(appToken) && !log.contains(officeSecret) && !log.contains(provider.clientSecret), "a secret reached the log")
    }

    @Test("users link ties an account to (issuer, subject); users list shows it; a pair links once; bad input exits 2")
    func linkAndList() async throws {
        let data = Self.temporaryFolder("link")
        defer { try? FileManager.default.removeItem(at: data) }
        for name in ["alice", "bob"] {
            let added = try await WopiProcess.run(["users", "add", name, "--password", "password-123", "--data", data.path])
            #expect(added.exitCode == 0, "\(added.stderr)")
        }
        let issuer = "https://id.example.com/realms/staff"
        let linked = try await WopiProcess.run(["users", "link", "alice", "--issuer", issuer, "--subject", "248289761001", "--data", data.path])
        #expect(linked.exitCode == 0, "\(linked.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(linked.stdout.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "alice" && object["issuer"] as? String == issuer && object["subject"] as? String == "248289761001")

        let list = try await WopiProcess.run(["users", "list", "--data", data.path])
        let users = list.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(users.first { $0["name"] as? String == "alice" }?["subject"] as? String == "248289761001")
        #expect(users.first { $0["name"] as? String == "alice" }?["issuer"] as? String == issuer)
        #expect(users.first { $0["name"] as? String == "bob" }?["issuer"] == nil, "an unlinked user has no issuer")

        let again = try await WopiProcess.run(["users", "link", "bob", "--issuer", issuer, "--subject", "248289761001", "--data", data.path])
        #expect(again.exitCode == 2 && again.stderrLines.count == 1 && again.stderr.contains("already linked"), "\(again.stderr)")
        let unknown = try await WopiProcess.run(["users", "link", "carol", "--issuer", issuer, "--subject", "x", "--data", data.path])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("no user named 'carol'"), "\(unknown.stderr)")
        let notURL = try await WopiProcess.run(["users", "link", "bob", "--issuer", "not a url", "--subject", "x", "--data", data.path])
        #expect(notURL.exitCode == 2, "\(notURL.stderr)")
        let after = try await WopiProcess.run(["users", "list", "--data", data.path])
        #expect(after.stdout.components(separatedBy: "248289761001").count == 2, "the refused links changed nothing: \(after.stdout)")
    }
}
