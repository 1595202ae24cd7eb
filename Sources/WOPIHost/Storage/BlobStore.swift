import Foundation
import NIOCore

/// Where document bodies live. Plug in your own (object storage, another disk) by conforming, and run
/// `WOPIStoreTesting`'s blob store conformance suite against it.
///
/// Bodies stream both ways: ``write(_:maximumSize:)`` consumes chunks as they arrive and must
/// not hold the whole document in memory; it returns only once the bytes are durable, under a
/// new key, so a crash at any moment leaves every recorded key intact.
public protocol BlobStore: Sendable {
    /// Stores a body under a fresh key and returns its key, size and SHA-256.
    ///
    /// Throws ``BlobStoreError/tooLarge(maximumSize:)`` as soon as more than `maximumSize` bytes arrive, and
    /// leaves nothing behind on any error (a dropped connection included).
    func write<Body: AsyncSequence & Sendable>(_ body: Body, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer

    /// The stored bytes of `key`, streamed, with the `size` recorded when it was written.
    /// Throws ``BlobStoreError/notFound(_:)`` when there is no such blob.
    func read(_ key: BlobKey, size: Int64) async throws -> BlobContent

    /// Removes a blob that no file refers to any more. Removing a missing blob is not an error.
    func delete(_ key: BlobKey) async throws

    /// Removes blobs not in `referenced`, and uploads left unfinished by a crash, when older than `grace`
    /// seconds; returns how many went.
    ///
    /// With several hosts on one store, a body another host has just written exists before its record is
    /// committed: the age test is what keeps the sweep away from it. `grace` must exceed the longest a write
    /// can take from its last byte to its record, and the hosts' clocks must agree to well within it.
    func collectGarbage(referenced: Set<BlobKey>, grace: TimeInterval) async throws -> Int

    /// Proves bodies can be read and written now (for `GET /health/ready`); throws an error whose
    /// description names the problem otherwise. Must be cheap and must not leave anything behind.
    func checkReadiness() async throws

    /// Where the bodies are, for logs: a folder or a bucket, never a secret.
    var location: String { get }
}

extension BlobStore {
    /// The sweep with the default grace of an hour.
    public func collectGarbage(referenced: Set<BlobKey>) async throws -> Int {
        try await collectGarbage(referenced: referenced, grace: 3600)
    }
}

/// Errors a ``BlobStore`` reports.
public enum BlobStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body exceeded the maximum size.
    case tooLarge(maximumSize: Int64)
    /// The blob does not exist.
    case notFound(BlobKey)
    /// The store cannot work now (a missing or read-only folder, an unreachable server); the text says why.
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
