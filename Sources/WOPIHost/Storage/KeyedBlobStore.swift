import NIOCore

/// A ``BlobStore`` that also stores a body under a key it is given, so bodies moved into it from another store keep
/// the keys the database records (``BodyMigration``).
public protocol KeyedBlobStore: BlobStore {
    /// Stores a body under `key`, replacing any body of that key whole; returns its key, size and SHA-256.
    ///
    /// As ``BlobStore/write(_:maximumSize:)``: throws ``BlobStoreError/tooLarge(maximumSize:)`` past `maximumSize`
    /// bytes, and a failed write leaves no body of `key` that is partly written.
    func write<Body: AsyncSequence & Sendable>(_ body: Body, as key: BlobKey, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer
}
