import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// Why a request got no answer, in the words a person reads in a report: refused, reset, closed,
/// timed out after N s, body over N MiB.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// Nothing listens on the host and port (ECONNREFUSED).
        case refused
        /// The host reset the connection (ECONNRESET, EPIPE).
        case reset
        /// The host closed the connection before it answered in full.
        case closed
        /// No connection could be made within this many seconds.
        case connectTimedOut(seconds: Int)
        /// The answer was not complete within this many seconds.
        case timedOut(seconds: Int)
        /// The body was longer than this many bytes; reading stopped there.
        case bodyTooLarge(maximumBytes: Int)
        /// The host's name could not be resolved.
        case unknownHost
        /// Anything else, as the HTTP client describes it.
        case other(String)
    }

    /// What went wrong.
    public let kind: Kind

    /// Creates a failure of `kind`.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// `connection refused`, `timed out after 60 s`, `body over 64 MiB`, ….
    public var description: String {
        switch kind {
        case .refused: "connection refused (nothing listens there)"
        case .reset: "connection reset by the host"
        case .closed: "the host closed the connection before it answered in full"
        case .connectTimedOut(let seconds): "no connection within \(seconds) s"
        case .timedOut(let seconds): "timed out after \(seconds) s without a complete answer"
        case .bodyTooLarge(let maximum): "body over \(Self.size(maximum)); reading stopped there"
        case .unknownHost: "the host name could not be resolved"
        case .other(let text): text
        }
    }

    /// `64 MiB`, or bytes for a limit below one MiB.
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    /// The plain-words failure for an error AsyncHTTPClient or SwiftNIO threw.
    static func from(_ error: any Error, timeout: Int, connectTimeout: Int, maximumBodySize: Int) -> TransportFailure {
        if let failure = error as? TransportFailure { return failure }
        if error is NIOTooManyBytesError { return TransportFailure(.bodyTooLarge(maximumBytes: maximumBodySize)) }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .writeTimeout: return TransportFailure(.timedOut(seconds: timeout))
            case .connectTimeout, .socksHandshakeTimeout, .tlsHandshakeTimeout: return TransportFailure(.connectTimedOut(seconds: connectTimeout))
            case .remoteConnectionClosed, .bodyLengthMismatch: return TransportFailure(.closed)
            default: break
            }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return TransportFailure(.refused)
            case ECONNRESET, EPIPE: return TransportFailure(.reset)
            case ETIMEDOUT: return TransportFailure(.connectTimedOut(seconds: connectTimeout))
            default: break
            }
        }
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                return TransportFailure(.unknownHost)
            }
            if let first = connection.connectionErrors.first {
                return from(first.error, timeout: timeout, connectTimeout: connectTimeout, maximumBodySize: maximumBodySize)
            }
        }
        switch error as? ChannelError {
        case .connectTimeout?: return TransportFailure(.connectTimedOut(seconds: connectTimeout))
        case .eof?, .ioOnClosedChannel?, .alreadyClosed?: return TransportFailure(.closed)
        default: return TransportFailure(.other(String(describing: error)))
        }
    }
}
