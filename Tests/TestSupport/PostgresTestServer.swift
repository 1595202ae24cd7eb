import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throwaway PostgreSQL server for tests: `initdb` in a temporary folder, `postgres` on a free
/// 127.0.0.1 port (and a Unix socket in the same folder), stopped by its PID when the test process exits.
///
/// One server per test process; each test asks for its own database with ``makeDatabase()``. When the
/// process runs as root (as CI does), the server runs as the `postgres` user, since `initdb` refuses root.
/// Without PostgreSQL installed, ``shared()`` throws an error that says how to install it — the tests that
/// need it fail, they never skip.
public final class PostgresTestServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The superuser role tests connect as (trust authentication: the server listens on loopback only).
    public static let user = "wopikit"

    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// The folder holding the cluster, its socket and its log.
    public let folder: URL
    let binaries: URL

    /// The server shared by every test in this process, started on first use.
    public static func shared() throws -> PostgresTestServer {
        try registry.withLock { state in
            if let server = state.server { return server }
            if let failure = state.failure { throw failure }
            do {
                let server = try PostgresTestServer.start()
                state.server = server
                atexit { PostgresTestServer.registry.withLock { $0.server?.stop() } }
                return server
            } catch let failure as Failure {
                state.failure = failure
                throw failure
            }
        }
    }

    /// A server of this test's own, for a test that stops and restarts it (the shared one serves every
    /// other test at the same time). Call ``shutDown()`` when done.
    public static func startPrivate() throws -> PostgresTestServer {
        try start()
    }

    /// Stops the server (fast shutdown, as an operator's `pg_ctl stop` does), keeping its data, so that
    /// ``restart()`` can bring it back.
    public func stopServer() {
        guard let pid = postmasterPID() else { return }
        thawLauncher()
        kill(pid, SIGINT)
        let deadline = Date().addingTimeInterval(15)
        while Self.isAlive(pid), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if Self.isAlive(pid) { kill(pid, SIGKILL) }
    }

    /// Freezes the server and every backend (SIGSTOP), as a hung machine would: connections are still
    /// accepted by the kernel, but nothing answers. ``resume()`` thaws them.
    public func pause() {
        guard let postmaster = postmasterPID() else { return }
        kill(postmaster, SIGSTOP) // first, so that it forks no backend the loop below would miss
        for child in Self.children(of: postmaster) { kill(child, SIGSTOP) }
    }

    /// Freezes (SIGSTOP) the server processes behind the connections now open to `database`, and nothing else: those
    /// connections never answer again, as when a crash orphans them, while new ones are served. Returns their PIDs
    /// for ``resume(_:)``.
    public func freezeConnections(to database: String) -> [pid_t] {
        guard let postmaster = postmasterPID() else { return [] }
        let backends = Self.children(of: postmaster).filter { pid in
            // A backend's title: "postgres: USER DATABASE ADDRESS(PORT) STATE".
            let title = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            return title.hasPrefix("postgres: \(Self.user) \(database) ")
        }
        for backend in backends { kill(backend, SIGSTOP) }
        return backends
    }

    /// Thaws processes ``freezeConnections(to:)`` froze.
    public func resume(_ processes: [pid_t]) {
        for process in processes { kill(process, SIGCONT) }
    }

    /// Thaws a server ``pause()`` froze.
    public func resume() {
        guard let postmaster = postmasterPID() else { return }
        for child in Self.children(of: postmaster) { kill(child, SIGCONT) }
        kill(postmaster, SIGCONT)
        thawLauncher()
    }

    /// When root, the server runs under `runuser`, which stops itself when its child is stopped and stays stopped: a
    /// stopped `runuser` never reaps the server once it exits, and PostgreSQL refuses to start again while the old PID
    /// (a zombie) seems alive.
    private func thawLauncher() {
        guard let launcher = process.withLock({ $0 })?.processIdentifier, launcher > 0, launcher != getpid() else { return }
        kill(launcher, SIGCONT)
    }

    /// Whether `pid` runs: not gone, and not a zombie waiting to be reaped.
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: end)...].split(separator: " ").first != "Z"
    }

    private func postmasterPID() -> pid_t? {
        let pidFile = folder.appendingPathComponent("cluster/postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// The PIDs whose parent is `parent`, from /proc.
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return nil }
            // After "pid (comm)": state, then the parent's PID.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    /// Starts a stopped server again with the same data on the same port; returns once it accepts connections.
    public func restart() throws {
        try launch(cluster: folder.appendingPathComponent("cluster"))
    }

    /// Stops the server and removes its folder.
    public func shutDown() {
        stop()
    }

    /// A new, empty database, as a `postgres://` URL.
    public func makeDatabase() throws -> String {
        let name = "wopikit_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try Self.run(binaries.appendingPathComponent("createdb"), ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, name], asServerUser: false)
        return url(database: name)
    }

    /// The URL of `database` on this server.
    public func url(database: String) -> String { "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL through `psql` (for tests that tamper with a database behind the store's back).
    public func execute(_ sql: String, database: String) throws {
        try Self.run(binaries.appendingPathComponent("psql"),
                     ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
                     asServerUser: false)
    }

    /// The rows `sql` reads through `psql`, unaligned and without headers (`-At`), for tests that look behind the store's back.
    public func query(_ sql: String, database: String) throws -> String {
        try Self.run(binaries.appendingPathComponent("psql"),
                     ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
                     asServerUser: false)
    }

    // MARK: Starting and stopping

    private struct State {
        var server: PostgresTestServer?
        var failure: Failure?
    }
    private static let registry = LockedValue(State())

    /// The server (or `runuser` above it), kept so it can be reaped once it stops.
    private let process = LockedValue<ChildProcess?>(nil)

    private init(port: Int, folder: URL, binaries: URL) {
        self.port = port
        self.folder = folder
        self.binaries = binaries
    }

    private static func start() throws -> PostgresTestServer {
        let binaries = try findBinaries()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopikit-pg-\(UUID().uuidString)", isDirectory: true)
        let cluster = folder.appendingPathComponent("cluster")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if geteuid() == 0 {
            guard getpwnam("postgres") != nil else {
                throw Failure(description: "running as root, and there is no 'postgres' user to run the test server as (apt-get install postgresql creates it)")
            }
            try Self.run(URL(fileURLWithPath: "/bin/chown"), ["postgres", folder.path], asServerUser: false)
        }
        try Self.run(binaries.appendingPathComponent("initdb"),
                     ["-D", cluster.path, "-U", user, "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"], asServerUser: true)
        var lastError: (any Error)?
        for _ in 0..<3 { // another process may take the port between probing and binding
            let port = try LocalPort.free()
            let server = PostgresTestServer(port: port, folder: folder, binaries: binaries)
            do {
                try server.launch(cluster: cluster)
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError ?? Failure(description: "PostgreSQL did not start")
    }

    private func launch(cluster: URL) throws {
        let log = folder.appendingPathComponent("postgres.log")
        // -k: the Unix socket lives in our folder, never in /var/run; fsync off: a test cluster needs no durability.
        let arguments = ["-D", cluster.path, "-h", "127.0.0.1", "-p", "\(port)", "-k", folder.path,
                         "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=1000"]
        // A direct child (through runuser when root), writing to a log file: no pipe for the server to hold open.
        let postgres = ChildProcess()
        if geteuid() == 0 {
            postgres.executableURL = URL(fileURLWithPath: "/sbin/runuser")
            postgres.arguments = ["-u", "postgres", "--", binaries.appendingPathComponent("postgres").path] + arguments
        } else {
            postgres.executableURL = binaries.appendingPathComponent("postgres")
            postgres.arguments = arguments
        }
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw Failure(description: "cannot create \(log.path)") }
        let logHandle = try FileHandle(forWritingTo: log)
        postgres.standardInput = FileHandle.nullDevice
        postgres.standardOutput = logHandle
        postgres.standardError = logHandle
        try postgres.run()
        try? logHandle.close()
        process.withLock { $0 = postgres }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let postmaster = postmasterPID(), LocalPort.isListening(port, processID: postmaster), (try? Self.run(binaries.appendingPathComponent("pg_isready"),
                                                       ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user], asServerUser: false)) != nil {
                return
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw Failure(description: "PostgreSQL did not accept connections on 127.0.0.1:\(port) within 60 s:\n\(output)")
    }

    /// Stops the server by the PID in `postmaster.pid` (fast shutdown), then removes its folder.
    func stop() {
        stopServer()
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: Processes

    /// The newest PostgreSQL installed the Debian way (`/usr/lib/postgresql/<version>/bin`), or on the PATH.
    private static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = root.appendingPathComponent("\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let bin = URL(fileURLWithPath: String(directory))
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path),
               FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("postgres").path) {
                return bin
            }
        }
        throw Failure(description: """
            PostgreSQL is not installed: the PostgreSQL store tests start their own throwaway server. \
            Install it with `apt-get install -y postgresql` (bash .ci/run does this).
            """)
    }

    @discardableResult
    static func run(_ executable: URL, _ arguments: [String], asServerUser: Bool) throws -> String {
        let process = ChildProcess()
        if asServerUser && geteuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = PipeReader.readToEnd(output.fileHandleForReading)
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }

}

/// A minimal lock-protected value (Synchronization's `Mutex` needs newer platforms than the package's minimum on macOS).
final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
