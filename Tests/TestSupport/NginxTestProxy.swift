import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nginx as a round-robin load balancer in front of several local servers, for tests: its own
/// configuration in a temporary folder, listening on a free 127.0.0.1 port, stopped by its PID.
///
/// Bodies stream both ways (no request or response buffering), so an upload reaches the server as it
/// is sent, as it does behind a production proxy configured for WOPI.
public final class NginxTestProxy: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port nginx listens on.
    public let port: Int
    let folder: URL
    private let pid: pid_t

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts nginx balancing round-robin over `upstreamPorts` on 127.0.0.1, on `port` if given (else a free one).
    ///
    /// `pinned` sends requests whose path starts with a prefix to one upstream only, so a test can make
    /// sure two steps of a flow land on different hosts.
    public static func start(port requestedPort: Int? = nil, upstreamPorts: [Int], pinned: [String: Int] = [:]) throws -> NginxTestProxy {
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "nginx is not installed: the multi-host tests balance two hosts with it. Install it with `apt-get install -y nginx-light` (bash .ci/run does this).")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopikit-nginx-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("logs"), withIntermediateDirectories: true)
        var lastError: (any Error)?
        for _ in 0..<(requestedPort == nil ? 3 : 1) {
            let port = try requestedPort ?? LocalPort.free()
            let configuration = folder.appendingPathComponent("nginx.conf")
            try configurationText(port: port, upstreamPorts: upstreamPorts, pinned: pinned, folder: folder).write(to: configuration, atomically: true, encoding: .utf8)
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", folder.path, "-c", configuration.path, "-e", folder.appendingPathComponent("logs/error.log").path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            let listening = { LocalPort.isListening(port, processID: process.processIdentifier) }
            while process.isRunning, !listening(), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning, listening() { return NginxTestProxy(port: port, folder: folder, pid: process.processIdentifier) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let log = (try? String(contentsOf: folder.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            lastError = Failure(description: "nginx did not start on 127.0.0.1:\(port): \(log)")
        }
        try? FileManager.default.removeItem(at: folder)
        throw lastError ?? Failure(description: "nginx did not start")
    }

    private init(port: Int, folder: URL, pid: pid_t) {
        self.port = port
        self.folder = folder
        self.pid = pid
    }

    /// The access log: one line per request with the upstream that answered it (`upstream=127.0.0.1:PORT`).
    public var accessLog: String { (try? String(contentsOf: folder.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? "" }

    /// Stops nginx (SIGQUIT, then SIGKILL) and removes its folder.
    public func stop() {
        if kill(pid, 0) == 0 {
            kill(pid, SIGQUIT)
            let deadline = Date().addingTimeInterval(10)
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    private static func configurationText(port: Int, upstreamPorts: [Int], pinned: [String: Int], folder: URL) -> String {
        let servers = upstreamPorts.map { "        server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: "\n")
        let proxied = """
                            proxy_http_version 1.1;
                            proxy_set_header Host $http_host;
                            proxy_set_header Connection "";
                            proxy_request_buffering off;
                            proxy_buffering off;
                            proxy_read_timeout 120s;
                            proxy_next_upstream error timeout;
            """
        let pinnedLocations = pinned.sorted { $0.key < $1.key }.map { prefix, upstream in
            """
                    location ^~ \(prefix) {
                        proxy_pass http://127.0.0.1:\(upstream);
            \(proxied)
                    }
            """
        }.joined(separator: "\n")
        let path = folder.path
        return """
            daemon off;
            master_process on;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/logs/error.log warn;
            events { worker_connections 1024; }
            http {
                log_format upstreams '$request_method $uri $status upstream=$upstream_addr';
                access_log \(path)/logs/access.log upstreams;
                client_body_temp_path \(path)/client_body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                upstream wopi {
            \(servers)
                }
                server {
                    listen 127.0.0.1:\(port);
                    client_max_body_size 0;
            \(pinnedLocations)
                    location / {
                        proxy_pass http://wopi;
            \(proxied)
                    }
                }
            }
            """
    }
}
