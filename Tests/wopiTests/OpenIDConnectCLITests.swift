import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
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
