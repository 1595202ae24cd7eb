import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, with the part of `Foundation.Process`'s interface the suite uses.
///
/// The suite starts hundreds of processes (`wopi`, PostgreSQL, nginx, SeaweedFS, Chromium) from tests running in
/// parallel. Foundation's `Process.run()` on Linux lists `/proc/self/fd` with a read past the end of each
/// directory entry, which crashes a busy test process now and then (swift-corelibs-foundation pull request 5472,
/// unreleased in Swift 6.3.1). This type spawns directly: the child gets the three standard streams and nothing
/// else (`closefrom` in the child, done by the kernel side of `posix_spawn`), default signal handling, and an
/// empty signal mask. It is reaped by its PID, so it never disturbs other children of the test process.
public final class ChildProcess: @unchecked Sendable {
    /// How the child ended, as `Foundation.Process.TerminationReason` says it.
    public enum TerminationReason: Sendable {
        case exit
        case uncaughtSignal
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's whole environment; `nil` passes this process's environment on.
    public var environment: [String: String]?
    /// A `FileHandle` (`FileHandle.nullDevice` for `/dev/null`), a `Pipe`, or `nil` to share this process's stream.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var waitStatus: Int32?

    public init() {}

    /// The child's PID (0 before ``run()``).
    public var processIdentifier: pid_t { lock.withLock { pid } }

    /// Starts the child.
    public func run() throws {
        guard let executableURL else { throw Failure(description: "no executable to run") }
        let path = executableURL.path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var handedOver: [FileHandle] = []
        for (stream, target, pipeEnd) in [(standardInput, Int32(0), false), (standardOutput, 1, true), (standardError, 2, true)] {
            switch stream {
            case nil:
                continue
            case let handle as FileHandle where handle === FileHandle.nullDevice:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            case let pipe as Pipe:
                let end = pipeEnd ? pipe.fileHandleForWriting : pipe.fileHandleForReading
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
                handedOver.append(end)
            default:
                throw Failure(description: "standard stream \(target) is neither a FileHandle nor a Pipe")
            }
        }
        try Self.closeOtherDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([path] + arguments).map { strdup($0) }
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv + [nil], envp + [nil])
        guard result == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(result)))") }
        lock.withLock { pid = child }
        // The child holds its own copies now; the parent's must go, or a reader never sees end of file.
        for handle in handedOver { try? handle.close() }
    }

    /// Whether the child has not exited yet (reaping it if it has).
    public var isRunning: Bool {
        lock.withLock {
            guard pid > 0, waitStatus == nil else { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { waitStatus = status } else if reaped < 0, errno == ECHILD { waitStatus = 0 }
            return waitStatus == nil
        }
    }

    /// Blocks until the child has exited and is reaped.
    public func waitUntilExit() {
        let child = processIdentifier
        guard child > 0 else { return }
        while lock.withLock({ waitStatus == nil }) {
            var status: Int32 = 0
            let reaped = waitpid(child, &status, 0)
            if reaped == child {
                lock.withLock { if waitStatus == nil { waitStatus = status } }
            } else if reaped < 0, errno != EINTR {
                // Reaped by `isRunning` on another thread, or by a caller's own `waitpid`.
                lock.withLock { if waitStatus == nil { waitStatus = 0 } }
            }
        }
    }

    /// Sends SIGTERM.
    public func terminate() {
        let child = processIdentifier
        if child > 0, isRunning { kill(child, SIGTERM) }
    }

    /// Sends `signal`, waits up to `grace` seconds for the child to exit, then SIGKILLs it, and reaps it.
    /// Returns whether it exited by itself (`false` when it had to be killed or had already stopped).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Double = 10) -> Bool {
        guard isRunning else { return false }
        let child = processIdentifier
        kill(child, signal)
        let deadline = Date().addingTimeInterval(grace)
        while isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let killed = isRunning
        if killed { kill(child, SIGKILL) }
        waitUntilExit()
        return !killed
    }

    /// The exit code, or the signal number when ``terminationReason`` is `.uncaughtSignal`.
    public var terminationStatus: Int32 {
        let status = lock.withLock { waitStatus ?? 0 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    public var terminationReason: TerminationReason {
        lock.withLock { (waitStatus ?? 0) & 0x7f } == 0 ? .exit : .uncaughtSignal
    }

    /// Makes the child close every descriptor above the standard three.
    private static func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        #if canImport(Glibc)
        // glibc 2.34 and later; not in the Swift overlay's headers, so found at run time.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later is needed)")
        }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        guard closeFrom(&actions, 3) == 0 else { throw Failure(description: "posix_spawn_file_actions_addclosefrom_np failed") }
        #endif
    }
}
