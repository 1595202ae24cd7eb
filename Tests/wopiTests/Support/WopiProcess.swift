import Foundation
import TestSupport

/// Runs the built `wopi` executable the way a user would, for CLI contract tests.
///
/// The binary is found next to the test bundle: on Linux `swift test` runs
/// `.build/<config>/<Package>PackageTests.xctest`, on macOS a bundle inside the same folder,
/// so the lookup walks up from the bundle and from `CommandLine.arguments[0]` until a directory
/// holds an executable named `wopi`.
struct WopiProcess {
    /// What one run produced.
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
        /// Non-empty lines of stderr.
        var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    enum Failure: Error, CustomStringConvertible {
        case binaryNotFound([String])
        case timedOut([String], seconds: Double)

        var description: String {
            switch self {
            case .binaryNotFound(let searched): "no 'wopi' executable found; searched \(searched.joined(separator: ", "))"
            case .timedOut(let args, let seconds): "wopi \(args.joined(separator: " ")) did not finish within \(seconds)s"
            }
        }
    }

    /// The `wopi` executable of the current build.
    static func executableURL() throws -> URL {
        var starts = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        var searched: [String] = []
        let fileManager = FileManager.default
        for start in starts {
            var directory = start.standardizedFileURL
            for _ in 0..<6 {
                let candidate = directory.appendingPathComponent("wopi")
                searched.append(candidate.path)
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   fileManager.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        throw Failure.binaryNotFound(searched)
    }

    /// Runs `wopi` as ``run(_:stdin:environment:timeout:)`` does, on a thread of its own: the wait never holds
    /// one of the few threads of Swift's cooperative pool, which the suite's in-process servers need to answer
    /// the very process being waited for.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil, timeout: Double = 30) async throws -> Result {
        try await offPool { try run(arguments, stdin: stdin, environment: environment, timeout: timeout) }
    }

    /// Runs `wopi` with `arguments`, optional `stdin` text, and a timeout; captures both streams.
    private static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil, timeout: Double = 30) throws -> Result {
        let process = ChildProcess()
        process.executableURL = try executableURL()
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        // Drain both pipes concurrently so a chatty process cannot block on a full pipe.
        let collector = OutputCollector()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = PipeReader.readToEnd(pipe.fileHandleForReading)
                collector.set(data, isOut: isOut)
                group.leave()
            }
        }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw Failure.timedOut(arguments, seconds: timeout)
        }
        process.waitUntilExit()
        group.wait()
        let (stdout, stderr) = collector.values
        return Result(exitCode: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Thread-safe holder for the two captured streams.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func set(_ data: Data, isOut: Bool) {
        lock.lock(); defer { lock.unlock() }
        if isOut { out = data } else { err = data }
    }

    var values: (Data, Data) {
        lock.lock(); defer { lock.unlock() }
        return (out, err)
    }
}
