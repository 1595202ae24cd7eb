import AsyncHTTPClient
import Foundation
import TestSupport
import NIOCore
import NIOHTTP1
import OfficeURLScheme
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `wopi serve`'s sign-in options and `wopi app-signin`, driven as a user would: a real `wopi serve`
/// child process on a free 127.0.0.1 port, always stopped by its PID.
@Suite(.serialized) struct AppSigninCLITests {
    static let password = "alice-password-1"

    @Test func appSigninPrintsAnAnswerOfficeCanRedeem() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let add = try await WopiProcess.run(["users", "add", "alice", "--password", Self.password, "--data", folder])
        #expect(add.exitCode == 0, "\(add.stderr)")
        let server = try ServeProcess.start(folder: folder, arguments: ["--office-client-id", "office-cli"],
                                            environment: ["WOPI_OFFICE_CLIENT_SECRET": "cli-secret-123", "WOPI_IOS_URL_SCHEMES": "contoso, contoso-emm",
                                                          "WOPI_PROVIDER_ID": "tp_cli"])
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            // The environment reached the challenge.
            let challengeReply = try await Self.send(http, "GET", "\(server.url)/wopibootstrapper")
            #expect(challengeReply.status == 401)
            let challenge = try BootstrapperChallenge(headerValue: try #require(challengeReply.wwwAuthenticate))
            #expect(challenge.iOSURLSchemes == ["contoso", "contoso-emm"])
            #expect(challenge.providerID == "tp_cli")
            #expect(challenge.tokenIssuanceURI == "\(server.url)/oauth2/token")

            let request = "contoso:client_id=office-cli&response_type=code&scope=wopi&rs=deDE&build=16.1.1234&platform=iOS&app=word&action=76d173ad-a43f"
            let result = try await WopiProcess.run(["app-signin", request, "--server", server.url, "--username", "alice", "--password", Self.password])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            let line = result.stdout.trimmingCharacters(in: .newlines)
            #expect(!line.contains("\n"))
            #expect(line.hasPrefix("ms-word-tp:code="))
            let answer = try SignInResponse(string: line)
            #expect(answer.action == "76d173ad-a43f")
            let code = try #require(answer.code)
            let sc = try #require(answer.sessionContext)

            // Office redeems the code with its secret and the session context, then bootstraps.
            let tokens = try await Self.send(http, "POST", "\(server.url)/oauth2/token", form: "grant_type=authorization_code&code=\(code)",
                                             headers: ["Authorization": Self.basic("office-cli", "cli-secret-123"), "X-WOPI-SessionContext": sc])
            #expect(tokens.status == 200, "\(tokens.body)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(tokens.body.utf8)) as? [String: Any])
            let access = try #require(json["access_token"] as? String)
            let bootstrap = try await Self.send(http, "GET", "\(server.url)/wopibootstrapper",
                                                headers: ["Authorization": "Bearer \(access)", "X-WOPI-SessionContext": sc])
            #expect(bootstrap.status == 200)
            #expect(bootstrap.body.contains("\"SignInName\":\"alice\""))
            // The code was single-use.
            let again = try await Self.send(http, "POST", "\(server.url)/oauth2/token", form: "grant_type=authorization_code&code=\(code)",
                                            headers: ["Authorization": Self.basic("office-cli", "cli-secret-123"), "X-WOPI-SessionContext": sc])
            #expect(again.status == 400)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
        // Nothing secret went to the log.
        let log = server.output()
        #expect(!log.contains(Self.password))
        #expect(!log.contains("cli-secret-123"))
        #expect(log.contains("/oauth2/token"))
    }

    @Test func appSigninFailuresPrintTheErrorFormAndExit1() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await WopiProcess.run(["users", "add", "alice", "--password", Self.password, "--data", folder])
        let server = try ServeProcess.start(folder: folder, arguments: ["--office-client-id", "office-cli", "--office-client-secret", "cli-secret-123",
                                                                        "--ios-url-scheme", "contoso"])
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let request = "contoso:client_id=office-cli&response_type=code&app=excel&action=act-1"

        let wrongPassword = try await WopiProcess.run(["app-signin", request, "--server", server.url, "--username", "alice", "--password", "wrong-password"])
        #expect(wrongPassword.exitCode == 1)
        let denied = try SignInResponse(string: wrongPassword.stdout.trimmingCharacters(in: .newlines))
        #expect(wrongPassword.stdout.hasPrefix("ms-excel-tp:error=access_denied"))
        #expect(denied.error?.code == "access_denied")
        #expect(denied.action == "act-1")
        #expect(denied.code == nil)
        #expect(wrongPassword.stderrLines.count == 1)

        let unknownClient = try await WopiProcess.run(["app-signin", "contoso:client_id=nobody&response_type=code&app=word&action=a2",
                                                 "--server", server.url, "--username", "alice", "--password", Self.password])
        #expect(unknownClient.exitCode == 1)
        #expect(try SignInResponse(string: unknownClient.stdout.trimmingCharacters(in: .newlines)).error?.code == "invalid_request")

        // The app's scheme must be one the host knows: its redirect URI is built on it.
        let otherScheme = try await WopiProcess.run(["app-signin", "fabrikam:client_id=office-cli&response_type=code&app=powerpoint&action=a3",
                                               "--server", server.url, "--username", "alice", "--password", Self.password])
        #expect(otherScheme.exitCode == 1)
        #expect(otherScheme.stdout.hasPrefix("ms-powerpoint-tp:error="))

        let closedPort = try LocalPort.free()
        let unreachable = try await WopiProcess.run(["app-signin", request, "--server", "http://127.0.0.1:\(closedPort)", "--username", "alice",
                                               "--password", Self.password, "--timeout", "2"])
        #expect(unreachable.exitCode == 1)
        #expect(unreachable.stdout.hasPrefix("ms-excel-tp:error=temporarily_unavailable"))

        let malformed = try await WopiProcess.run(["app-signin", "not a sign-in request", "--server", server.url, "--username", "alice",
                                             "--password", Self.password])
        #expect(malformed.exitCode == 2)
        #expect(malformed.stderrLines.count == 1)
        #expect(malformed.stdout.isEmpty)
    }

    @Test func freshDataFolderGetsAGeneratedSecretKeptOnlyAsADigest() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try ServeProcess.start(folder: folder, arguments: [])
        let secret: String
        let clientID: String
        do {
            defer { first.stop() }
            try await first.waitUntilHealthy()
            let output = first.output()
            let secrets = try String(contentsOfFile: folder + "/first-start-secrets.txt", encoding: .utf8)
            secret = try #require(Self.value(after: "client secret:", in: secrets))
            #expect(!output.contains(secret), "the secret stays out of the output")
            clientID = try #require(Self.value(after: "client id:", in: output))
            #expect(output.contains("redirect URI:    https://localhost"))
            #expect(output.contains("bootstrapper:    \(first.url)/wopibootstrapper"))
            #expect(try await Self.clientAuthenticates(first.url, clientID, secret))
            #expect(try await Self.clientAuthenticates(first.url, clientID, secret + "x") == false)
        }
        // Only the digest is in the data folder.
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("wopi.sqlite") {
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name)))
        }
        #expect(!bytes.isEmpty)
        #expect(bytes.range(of: Data(secret.utf8)) == nil)

        // A restart keeps the registration and does not print a secret again.
        let second = try ServeProcess.start(folder: folder, arguments: [])
        defer { second.stop() }
        try await second.waitUntilHealthy()
        #expect(!second.output().contains("client secret:"))
        #expect(try await Self.clientAuthenticates(second.url, clientID, secret))
    }

    @Test func serveRejectsInvalidRegistrationValues() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for arguments in [["--ios-url-scheme", "1bad"], ["--provider-id", "tp-contoso"], ["--office-redirect-uri", "localhost"],
                          ["--office-client-id", "a:b"]] {
            let result = try await WopiProcess.run(["serve", "--data", folder, "--port", "0"] + arguments, timeout: 20)
            #expect(result.exitCode == 2, "\(arguments)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        }
    }

    // MARK: Helpers

    /// Whether the token endpoint accepts the client credentials (a bogus refresh token then fails as invalid_grant, not invalid_client).
    static func clientAuthenticates(_ base: String, _ id: String, _ secret: String) async throws -> Bool {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let reply = try? await send(http, "POST", "\(base)/oauth2/token", form: "grant_type=refresh_token&refresh_token=bogus",
                                    headers: ["Authorization": basic(id, secret)])
        try? await http.shutdown()
        guard let reply else { throw ServeProcess.Failure("the token endpoint did not answer") }
        return reply.status == 400 && reply.body.contains("invalid_grant")
    }

    static func value(after label: String, in text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }),
              let range = line.range(of: label) else { return nil }
        return line[range.upperBound...].split(separator: " ").first.map(String.init)
    }

    struct Reply {
        var status: Int
        var body: String
        var wwwAuthenticate: String?
    }

    static func send(_ http: HTTPClient, _ method: String, _ url: String, form: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method == "POST" ? .POST : .GET
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: Int(response.status.code), body: String(buffer: body), wwwAuthenticate: response.headers.first(name: "WWW-Authenticate"))
    }

    static func basic(_ id: String, _ secret: String) -> String {
        "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
    }

    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-appsignin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A `wopi serve` child process; its output goes to a file so it can never block on a full pipe.
final class ServeProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let process: ChildProcess
    let port: Int
    let logPath: String
    var url: String { "http://127.0.0.1:\(port)" }

    private init(process: ChildProcess, port: Int, logPath: String) {
        self.process = process
        self.port = port
        self.logPath = logPath
    }

    static func start(folder: String, arguments: [String], environment: [String: String] = [:]) throws -> ServeProcess {
        let port = try LocalPort.free()
        let logPath = folder + ".log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let process = ChildProcess()
        process.executableURL = try WopiProcess.executableURL()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(port), "--data", folder] + arguments
        var env = ProcessInfo.processInfo.environment
        for name in ["WOPI_OFFICE_CLIENT_ID", "WOPI_OFFICE_CLIENT_SECRET", "WOPI_OFFICE_REDIRECT_URI", "WOPI_PROVIDER_ID", "WOPI_IOS_URL_SCHEMES"] {
            env[name] = nil
        }
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return ServeProcess(process: process, port: port, logPath: logPath)
    }

    /// Polls `/health` for up to 60 seconds.
    func waitUntilHealthy() async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let deadline = Date().addingTimeInterval(60)
        var healthy = false
        while Date() < deadline, process.isRunning {
            if LocalPort.isListening(port, processID: process.processIdentifier),
               let reply = try? await AppSigninCLITests.send(http, "GET", "\(url)/health"), reply.status == 200 {
                healthy = true
                break
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        try? await http.shutdown()
        guard healthy else { throw Failure("wopi serve did not become healthy: \(output())") }
    }

    /// Everything the server printed so far.
    func output() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Stops the server by its PID and removes its log.
    func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }
}
