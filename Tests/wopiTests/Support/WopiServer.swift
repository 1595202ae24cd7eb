import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `wopi serve` child process for end-to-end tests: started on a free 127.0.0.1 port, stopped by its PID.
///
/// Output goes to a log file (not a pipe, so a chatty server can never block); ``log`` reads it for failure messages.
final class WopiServer: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case noFreePort(String)
        case exitedEarly(status: Int32, log: String)
        case notListening(port: Int, seconds: Double, log: String)

        var description: String {
            switch self {
            case .noFreePort(let why): "could not find a free port: \(why)"
            case .exitedEarly(let status, let log): "wopi serve exited with status \(status) before listening:\n\(log)"
            case .notListening(let port, let seconds, let log): "wopi serve did not accept connections on port \(port) within \(seconds)s:\n\(log)"
            }
        }
    }

    let port: Int
    private let process: ChildProcess
    private let logURL: URL

    /// Starts the server as ``start(data:extraArguments:timeout:)`` does, waiting on a thread of its own rather
    /// than on one of the cooperative pool's.
    static func start(data: URL, extraArguments: [String] = [], environment: [String: String] = [:], timeout: Double = 60) async throws -> WopiServer {
        try await offPool { try start(data: data, extraArguments: extraArguments, environment: environment, timeout: timeout) }
    }

    /// Starts `wopi serve --host 127.0.0.1 --port <free port> --data <data>` plus `extraArguments`, and waits until it listens there itself.
    private static func start(data: URL, extraArguments: [String] = [], environment: [String: String] = [:], timeout: Double = 60) throws -> WopiServer {
        var lastError: (any Error)?
        // Another process may grab the port between probing and binding; try a few ports.
        for _ in 0..<3 {
            let port = try freePort()
            let server = try WopiServer(port: port, data: data, extraArguments: extraArguments, environment: environment)
            do {
                try server.waitUntilListening(port: port, timeout: timeout)
                return server
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError ?? Failure.noFreePort("unknown")
    }

    private init(port: Int, data: URL, extraArguments: [String], environment: [String: String]) throws {
        self.port = port
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-serve-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logURL.path])
        }
        let log = try FileHandle(forWritingTo: logURL)
        process = ChildProcess()
        process.executableURL = try WopiProcess.executableURL()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(port), "--data", data.path] + extraArguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    // Servers started with arguments of the test's choosing, and signals without waiting.
    /// Starts `wopi serve` plus exactly `arguments` (no host, port or data added), with extra environment variables.
    /// With `umask` (octal, e.g. `000`), a shell sets it and then becomes `wopi serve` (same PID).
    static func launch(_ arguments: [String], environment: [String: String] = [:], umask: String? = nil) throws -> WopiServer {
        try WopiServer(arguments: arguments, environment: environment, umask: umask)
    }

    private init(arguments: [String], environment: [String: String], umask: String? = nil) throws {
        port = 0
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-serve-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logURL.path])
        }
        let log = try FileHandle(forWritingTo: logURL)
        process = ChildProcess()
        if let umask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask) && exec \"$0\" serve \"$@\"", try WopiProcess.executableURL().path] + arguments
        } else {
            process.executableURL = try WopiProcess.executableURL()
            process.arguments = ["serve"] + arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits until the server itself listens on `port` (a launched server's port), on a thread of its own
    /// rather than on one of the cooperative pool's.
    func waitUntilListening(port: Int, timeout: Double = 60) async throws {
        try await offPool { try self.waitUntilListening(port: port, timeout: timeout) }
    }

    /// Waits until the server itself listens on `port` (a launched server's port).
    private func waitUntilListening(port: Int, timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else { throw Failure.exitedEarly(status: process.terminationStatus, log: log) }
            if LocalPort.isListening(port, processID: process.processIdentifier) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw Failure.notListening(port: port, seconds: timeout, log: log)
    }

    /// Whether the server has a file open under `folder` (an upload being staged). The blob store may stage
    /// through an unnamed temporary file (O_TMPFILE), invisible in a listing, so this reads /proc's descriptors.
    func isWriting(under folder: URL) -> Bool { Self.isWriting(pid: process.processIdentifier, under: folder) }

    /// Whether process `pid` has a file open under `folder`, from /proc's descriptors (a listing of the
    /// folder where /proc does not exist).
    static func isWriting(pid: Int32, under folder: URL) -> Bool {
        let descriptors = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: descriptors) else {
            return !((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty
        }
        let prefixes = [folder.resolvingSymlinksInPath().path + "/", folder.path + "/"]
        return entries.contains { entry in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\(entry)")) ?? ""
            return prefixes.contains { target.hasPrefix($0) }
        }
    }

    /// The names of the server's threads, from /proc (empty where /proc does not exist).
    func threadNames() -> [String] {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return ids.compactMap { id in
            (try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Sends `signal` to the server's PID and returns at once; `false` when it is not running.
    func signal(_ signal: Int32) -> Bool {
        guard process.isRunning else { return false }
        return kill(process.processIdentifier, signal) == 0
    }

    /// Waits up to `timeout` seconds for the server to exit by itself, on a thread of its own rather than on one
    /// of the cooperative pool's; its exit status, or `nil` if it is still running.
    func waitForExit(timeout: Double = 90) async throws -> Int32? {
        try await offPool { self.waitForExit(timeout: timeout) }
    }

    /// Waits up to `timeout` seconds for the server to exit by itself; its exit status, or `nil` if it is still running.
    private func waitForExit(timeout: Double = 90) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else { return nil }
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    /// The server's output so far.
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The base URL, `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops the server: `signal` (SIGTERM by default) to its PID, SIGKILL if it has not exited after
    /// 10 seconds. Returns the exit status when it stopped by itself, `nil` when it had to be killed
    /// or had already stopped. Safe to call twice.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> Int32? {
        guard process.isRunning else { return nil }
        let exited = process.stop(signal: signal)
        try? FileManager.default.removeItem(at: logURL)
        return !exited || process.terminationReason != .exit ? nil : process.terminationStatus
    }

    deinit { stop() }

    // MARK: - Sockets

    /// A port the kernel considers free on 127.0.0.1.
    static func freePort() throws -> Int {
        do { return try LocalPort.free() } catch { throw Failure.noFreePort("\(error)") }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool { LocalPort.accepts(port) }
}
