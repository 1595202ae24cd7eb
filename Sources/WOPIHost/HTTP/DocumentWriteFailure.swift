import Foundation
import SystemPackage
import _NIOFileSystem

/// A document body that could not be written, told by the `errno` the failure carries: a full disk,
/// an exhausted quota, a read-only or failing volume.
///
/// The text says what went wrong and never where: no path, no key. It goes into
/// `X-WOPI-ServerError`, the audit log and, as ``reason``, the `wopi_document_write_errors_total` metric.
struct DocumentWriteFailure: Sendable, Hashable {
    /// A metric label: `no_space`, `quota`, `read_only`, `io`, `permission` or `other`.
    let reason: String
    /// What the client is told.
    let message: String

    /// The failure `error` describes, or `nil` when it carries no `errno` (not a failed system call).
    init?(_ error: any Error) {
        guard let code = Self.errno(in: error) else { return nil }
        self.init(errno: code)
    }

    init(errno code: Int32) {
        switch code {
        case ENOSPC: (reason, message) = ("no_space", "no space left on the document store")
        case EDQUOT: (reason, message) = ("quota", "the document store's quota is exhausted")
        case EROFS: (reason, message) = ("read_only", "the document store is read-only")
        case EIO: (reason, message) = ("io", "the document store reported an I/O error")
        case EACCES, EPERM: (reason, message) = ("permission", "the document store refused the write (permission denied)")
        default: (reason, message) = ("other", "the document store could not write the file: \(String(cString: strerror(code)))")
        }
    }

    /// The `errno` of a failed file-system call, from the error types the blob stores' layers throw (not NIO's
    /// `IOError`, which sockets throw too: a failed connection is not a failed write).
    static func errno(in error: any Error) -> Int32? {
        switch error {
        case let error as Errno: return error.rawValue
        case let error as FileSystemError.SystemCallError: return error.errno.rawValue
        case let error as FileSystemError: return error.cause.flatMap { Self.errno(in: $0) }
        case let error as POSIXError: return error.code.rawValue
        case let error as CocoaError: return (error.userInfo[NSUnderlyingErrorKey] as? any Error).flatMap { Self.errno(in: $0) }
        default: return nil
        }
    }
}
