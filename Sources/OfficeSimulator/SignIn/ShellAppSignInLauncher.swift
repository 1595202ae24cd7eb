import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stands in for the provider's app with a command line: the command is run through `/bin/sh -c`
/// with the request URL appended as its last argument (single-quoted, so `&` and `|` stay literal),
/// and the last non-empty line of its standard output is the answer URL.
///
/// ```swift
/// let app = ShellAppSignInLauncher(command: "wopi app-signin --server http://127.0.0.1:8080 --username alice --password pw")
/// ```
public struct ShellAppSignInLauncher: AppSignInLauncher {
    /// The command, in shell syntax, without the request URL.
    public let command: String
    /// The longest the command may run.
    public let timeout: Duration

    /// Creates a launcher for `command`.
    public init(command: String, timeout: Duration = .seconds(60)) {
        self.command = command
        self.timeout = timeout
    }

    /// `text` as one shell word: single-quoted, each `'` written as `'\''` (POSIX sh, §2.2.2).
    public static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The full shell command line run for `requestURL`.
    public func commandLine(for requestURL: String) -> String {
        "\(command) \(Self.shellQuoted(requestURL))"
    }

    /// Runs the command and returns the last non-empty line of its standard output.
    public func open(_ requestURL: String) async throws(AppSignInLaunchError) -> String {
        let line = commandLine(for: requestURL)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let outcome: Result<String, AppSignInLaunchError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.run(line, timeout: seconds))
            }
        }
        return try outcome.get()
    }

    /// Everything a pipe delivers until end of file. Foundation's `readDataToEndOfFile()` traps when a
    /// signal (the child's SIGCHLD among them) interrupts `read`; this loop retries instead.
    private static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }

    /// Runs `line` synchronously on the calling (background) thread.
    private static func run(_ line: String, timeout: Double) -> Result<String, AppSignInLaunchError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let output = PipeCollector()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                output.set(Self.readToEnd(pipe.fileHandleForReading), isOut: isOut)
                group.leave()
            }
        }
        do {
            try process.run()
        } catch {
            try? out.fileHandleForWriting.close()
            try? err.fileHandleForWriting.close()
            return .failure(AppSignInLaunchError("could not start /bin/sh: \(error)"))
        }
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            return .failure(AppSignInLaunchError("the app-sign-in command did not finish within \(Int(timeout)) seconds"))
        }
        group.wait()
        let (stdout, stderr) = output.values
        let errorText = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        guard process.terminationStatus == 0 else {
            var message = "the app-sign-in command exited with status \(process.terminationStatus)"
            if !errorText.isEmpty { message += ": \(errorText.prefix(300))" }
            return .failure(AppSignInLaunchError(message))
        }
        let lines = String(decoding: stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let last = lines.last else {
            return .failure(AppSignInLaunchError("the app-sign-in command printed nothing on standard output"))
        }
        return .success(last)
    }
}

/// Collects the two output streams of a child process from two threads.
///
/// Unchecked `Sendable` because its two fields are read and written only while `lock` is held (`Mutex` needs iOS 18).
private final class PipeCollector: @unchecked Sendable {
    // Guarded by `lock`; written once per stream.
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if isOut { out = data } else { err = data }
    }

    var values: (Data, Data) {
        lock.lock()
        defer { lock.unlock() }
        return (out, err)
    }
}
