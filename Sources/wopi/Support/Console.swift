import Foundation
import Synchronization
import SystemPackage
import WOPICore

/// The one way `wopi` writes to stdout and stderr.
///
/// - Secrets are masked on the way out (``SecretRedactor``): token, secret and password fields, `Bearer`
///   credentials, and every value the tool was given through an option or `WOPI_*` variable whose name says
///   it is secret (``start(arguments:environment:)``). Commands whose product is a credential say so with
///   ``credential(_:)``.
/// - Writes go straight to the file descriptor and never trap: SIGPIPE is ignored, and a closed reader
///   (`wopi validate | head -1`) makes the write fail with EPIPE. The console then drops everything after,
///   and calls the handler set with ``onClosedOutput(_:)`` once, so the command can stop its work, clean up
///   and end quietly (``Interruption``).
enum Console {
    /// stdout or stderr.
    enum Stream: Sendable {
        case standardOutput, standardError

        var descriptor: FileDescriptor { self == .standardOutput ? .standardOutput : .standardError }
    }

    private struct State {
        var redactor = SecretRedactor()
        var closed = false
        var onClosed: (@Sendable () -> Void)?
    }

    private static let state = Mutex(State())

    /// Ignores SIGPIPE and learns the secrets in the command line and the environment.
    static func start(arguments: [String], environment: [String: String]) {
        signal(SIGPIPE, SIG_IGN)
        addSecrets(secretValues(arguments: arguments, environment: environment))
    }

    /// Values of options (`--access-token T`, `--password=P`) and `WOPI_*` variables whose names say they are secret.
    static func secretValues(arguments: [String], environment: [String: String]) -> [String] {
        var secrets: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else { continue }
            let option = argument.dropFirst(2)
            if let equals = option.firstIndex(of: "=") {
                if SecretRedactor.isSecretName(option[..<equals]) { secrets.append(String(option[option.index(after: equals)...])) }
            } else if SecretRedactor.isSecretName(option), index < arguments.count {
                secrets.append(arguments[index])
                index += 1
            }
        }
        for (name, value) in environment where name.hasPrefix("WOPI_") && SecretRedactor.isSecretName(name) {
            secrets.append(value)
        }
        return secrets
    }

    /// Masks these values too from now on (a token a host handed out during the run, for example).
    static func addSecrets(_ secrets: [String]) {
        guard !secrets.isEmpty else { return }
        state.withLock { $0.redactor = $0.redactor.adding(secrets) }
    }

    /// `text` as the console would print it.
    static func redact(_ text: String) -> String {
        state.withLock { $0.redactor }.redact(text)
    }

    /// Calls `handler` once when stdout or stderr turns out to be closed.
    static func onClosedOutput(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.onClosed = handler }
    }

    /// Whether a reader went away: nothing more will be printed.
    static var outputClosed: Bool { state.withLock { $0.closed } }

    /// Prints a line, secrets masked.
    static func line(_ text: String, to stream: Stream = .standardOutput) {
        write(redact(text) + "\n", to: stream)
    }

    /// Prints a line that is the command's product and may rightly hold a credential (`wopi token`'s JSON,
    /// `app-signin`'s answer URL, `serve`'s one-time password): not masked.
    static func unmasked(_ text: String) {
        write(text + "\n", to: .standardOutput)
    }

    /// Writes text as is, retrying short writes and interrupted calls; a closed reader ends all output.
    static func write(_ text: String, to stream: Stream) {
        guard !outputClosed else { return }
        let failed: Bool = text.utf8.withContiguousStorageIfAvailable { Self.writeAll($0, to: stream.descriptor) }
            ?? Array(text.utf8).withUnsafeBufferPointer { Self.writeAll($0, to: stream.descriptor) }
        guard failed else { return }
        let handler = state.withLock { (state: inout State) -> (@Sendable () -> Void)? in
            guard !state.closed else { return nil }
            state.closed = true
            return state.onClosed
        }
        handler?()
    }

    /// Returns true when the descriptor refused the bytes (EPIPE, EBADF, …).
    private static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: FileDescriptor) -> Bool {
        var remaining = UnsafeRawBufferPointer(bytes)
        while !remaining.isEmpty {
            do {
                let written = try descriptor.write(remaining)
                remaining = UnsafeRawBufferPointer(rebasing: remaining[written...])
            } catch let error as Errno where error == .resourceTemporarilyUnavailable {
                continue
            } catch {
                return true
            }
        }
        return false
    }

    /// A text stream on stderr for swift-log's `StreamLogHandler`: each record masked, and never a trap.
    struct StandardErrorLog: TextOutputStream, Sendable {
        mutating func write(_ string: String) {
            Console.write(Console.redact(string), to: .standardError)
        }
    }
}
