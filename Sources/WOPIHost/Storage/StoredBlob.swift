import Foundation

/// A body that has been written durably and can be recorded as a file's content.
public struct StoredBlob: Sendable, Hashable {
    /// Where it is.
    public var key: BlobKey
    /// Its size in bytes.
    public var size: Int64
    /// SHA-256 of its bytes, base64.
    public var sha256: String

    /// Creates a stored blob description.
    public init(key: BlobKey, size: Int64, sha256: String) {
        self.key = key
        self.size = size
        self.sha256 = sha256
    }
}
