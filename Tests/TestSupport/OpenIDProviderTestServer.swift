import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real OpenID Connect provider for tests: django-oidc-provider (PyPI), run by `Tests/OpenIDProvider/provider.py`
/// on 127.0.0.1 and a free port, its database and keys in a temporary folder, stopped by its PID.
///
/// It has one person (``user`` / ``password``, "Jane Doe"), one confidential client (``clientID`` / ``clientSecret``,
/// RS256 id_tokens, no consent page) and two apps' public clients (``appClientID``, ``otherAppClientID``). Python comes
/// from `.build/venv-oidc` (bash .ci/run makes it) or `WOPI_OIDC_PYTHON`; without it ``start()`` throws an error that says how to install it: the tests fail, they never skip.
public final class OpenIDProviderTestServer: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let clientID = "wopikit-host"
    public let clientSecret = "django-client-secret-" + UUID().uuidString.lowercased()
    public let user = "jane"
    public let password = "jane-password-1"
    public let port: Int
    public let folder: URL
    private let python: URL
    private let process = ChildProcess()

    /// The issuer identifier: `http://127.0.0.1:PORT/openid`.
    public var issuer: String { "http://127.0.0.1:\(port)/openid" }
    /// The person's `sub` (their id in the provider's database).
    public private(set) var subject = ""

    private init(port: Int, folder: URL, python: URL) {
        self.port = port
        self.folder = folder
        self.python = python
    }

    /// Sets up the provider's database and starts it; ready when its discovery document answers. The waiting
    /// happens on a thread of its own, never on one of the cooperative pool's, which the rest of the suite needs.
    public static func start() async throws -> OpenIDProviderTestServer {
        try await offPool { try startWaiting() }
    }

    private static func startWaiting() throws -> OpenIDProviderTestServer {
        let python = try findPython()
        var lastError: (any Error)?
        for _ in 0..<3 { // another process may take the port between probing and binding
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopikit-oidc-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let server = OpenIDProviderTestServer(port: try LocalPort.free(), folder: folder, python: python)
            do {
                let output = try server.script(["setup", folder.path, String(server.port), "http://127.0.0.1/unregistered", server.clientID,
                                                server.clientSecret, server.user, server.password])
                server.subject = output.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
                try server.launch()
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError ?? Failure(description: "the OpenID Connect provider did not start")
    }

    /// Registers `uri` as the client's only redirect URI.
    public func allowRedirect(_ uri: String) async throws {
        _ = try await offPool { try self.script(["redirect", self.folder.path, String(self.port), uri]) }
    }

    /// Replaces the provider's signing keys with a new one, as a key rotation does; returns its key id.
    public func rotateKey() async throws -> String {
        try await offPool { try self.script(["rotate", self.folder.path, String(self.port)]) }.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The public client of the provider's own iOS app.
    public let appClientID = "provider-app"
    /// Another app of the same provider, whose tokens the host must refuse.
    public let otherAppClientID = "other-app"

    /// The id_token the running provider issues to `clientID` (``appClientID`` or ``otherAppClientID``) when the person
    /// signs in there, as an app's own sign-in at its identity provider gets it.
    public func appToken(for clientID: String) async throws -> String {
        try await offPool { try self.script(["app-token", self.folder.path, String(self.port), clientID, self.user, self.password]) }
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the provider by its PID and removes its folder.
    public func stop() {
        if process.processIdentifier != 0 { _ = process.stop(grace: 10) }
        try? FileManager.default.removeItem(at: folder)
    }

    private func launch() throws {
        let log = folder.appendingPathComponent("provider.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw Failure(description: "cannot create \(log.path)") }
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = python
        process.arguments = [Self.script.path, "serve", folder.path, String(port)]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try? handle.close()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isRunning else { break }
            if LocalPort.isListening(port, processID: process.processIdentifier), Self.status(port: port, path: "/openid/.well-known/openid-configuration") == 200 {
                return
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw Failure(description: "the OpenID Connect provider did not become ready on 127.0.0.1:\(port) within 60 s:\n\(output.suffix(4000))")
    }

    /// Runs one of the script's short commands to its end; its standard output.
    private func script(_ arguments: [String]) throws -> String {
        let output = folder.appendingPathComponent("command-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else { throw Failure(description: "cannot create \(output.path)") }
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let command = ChildProcess()
        command.executableURL = python
        command.arguments = [Self.script.path] + arguments
        command.standardInput = FileHandle.nullDevice
        command.standardOutput = handle
        command.standardError = handle
        try command.run()
        command.waitUntilExit()
        try? handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard command.terminationStatus == 0 else {
            throw Failure(description: "provider.py \(arguments.first ?? "") failed (\(command.terminationStatus)):\n\(text.suffix(4000))")
        }
        return text
    }

    /// The HTTP status of a GET, or `nil` without an answer (a raw HTTP/1.0 exchange).
    static func status(port: Int, path: String) -> Int? {
        guard let fd = try? LocalPort.connection(to: port, timeout: 2) else { return nil }
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 12 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private static var script: URL { root.appendingPathComponent("Tests/OpenIDProvider/provider.py") }

    /// `WOPI_OIDC_PYTHON`, else the venv bash .ci/run makes in this checkout's build folder.
    public static func findPython() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["WOPI_OIDC_PYTHON"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw Failure(description: "WOPI_OIDC_PYTHON is '\(path)', which is not an executable file")
            }
            return URL(fileURLWithPath: path)
        }
        let venv = root.appendingPathComponent(".build/venv-oidc/bin/python")
        if FileManager.default.isExecutableFile(atPath: venv.path) { return venv }
        throw Failure(description: """
            django-oidc-provider is not installed: the OpenID Connect tests start their own provider. Install it with \
            `python3 -m venv .build/venv-oidc && .build/venv-oidc/bin/pip install 'django>=5.2,<6' django-oidc-provider==0.9.0` \
            (bash .ci/run does this), or set WOPI_OIDC_PYTHON to a Python that has both.
            """)
    }
}
