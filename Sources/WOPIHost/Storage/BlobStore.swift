import Foundation
import Hummingbird
import NIOCore

/// Where document bodies live. Plug in your own (object storage, another disk) by conforming.
///
/// Bodies stream both ways: ``write(_:maximumSize:)`` consumes chunks as they arrive and must
/// not hold the whole document in memory; it returns only once the bytes are durable, under a
/// new key, so a crash at any moment leaves every recorded key intact.
public protocol BlobStore: Sendable {
    /// Stores a body and returns its key, size and SHA-256.
    ///
    /// Throws ``BlobStoreError/tooLarge(maximumSize:)`` as soon as more than `maximumSize` bytes arrive, and
    /// leaves nothing behind on any error (a dropped connection included).
    func write<Body: AsyncSequence & Sendable>(_ body: Body, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer

    /// A streaming response body for a stored blob.
    func read(_ key: BlobKey, size: Int64) async throws -> ResponseBody

    /// Removes a blob that no file refers to any more. Removing a missing blob is not an error.
    func delete(_ key: BlobKey) async throws

    /// Proves bodies can be read and written now (for `GET /health/ready`); throws an error whose
    /// description names the problem otherwise. Must be cheap and must not leave anything behind.
    func checkReadiness() async throws
}

/// Errors a ``BlobStore`` reports.
public enum BlobStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body exceeded the maximum size.
    case tooLarge(maximumSize: Int64)
    /// The blob does not exist.
    case notFound(BlobKey)
    /// The store cannot work now (a missing or read-only folder); the text says why.
    case unavailable(String)

    /// The error for people and logs.
    public var description: String {
        switch self {
        case .tooLarge(let maximum): "the body exceeds \(maximum) bytes"
        case .notFound(let key): "no blob \(key.rawValue)"
        case .unavailable(let reason): reason
        }
    }
}
