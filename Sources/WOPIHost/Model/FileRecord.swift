import Foundation
import WOPICore

/// A document's metadata: everything but its bytes, which live in a ``BlobStore`` under ``blobKey``.
public struct FileRecord: Sendable, Hashable, Identifiable {
    /// The file's id in `/wopi/files/<id>`.
    public var id: ResourceID
    /// The container the file is in.
    public var containerID: ResourceID
    /// The owner.
    public var ownerID: ResourceID
    /// The name with extension (`BaseFileName`).
    public var name: String
    /// Size in bytes.
    public var size: Int64
    /// Increases on every change of content or name and never repeats (`Version`).
    public var version: Int64
    /// SHA-256 of the content, base64 as CheckFileInfo's `SHA256` wants it.
    public var sha256: String
    /// Where the bytes are.
    public var blobKey: BlobKey
    /// When the content last changed.
    public var modifiedAt: Date
    /// The lock, if one was taken; it may have expired, which counts as unlocked.
    public var lock: LockState?

    /// Creates a file record.
    public init(id: ResourceID, containerID: ResourceID, ownerID: ResourceID, name: String, size: Int64,
                version: Int64, sha256: String, blobKey: BlobKey, modifiedAt: Date, lock: LockState?) {
        self.id = id
        self.containerID = containerID
        self.ownerID = ownerID
        self.name = name
        self.size = size
        self.version = version
        self.sha256 = sha256
        self.blobKey = blobKey
        self.modifiedAt = modifiedAt
        self.lock = lock
    }

    /// `Version` as WOPI sends it: a string.
    public var versionString: String { "v\(version)" }

    /// The lowercase extension with its dot (`.docx`), or `""`.
    public var fileExtension: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[dot...].lowercased()
    }

    /// The current lock if it has not expired at `now`.
    public func activeLock(at now: Date) -> WOPILock? {
        lock.flatMap { $0.isActive(at: now) ? $0.lock : nil }
    }
}
