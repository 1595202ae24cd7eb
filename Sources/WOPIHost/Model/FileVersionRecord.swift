import Foundation
import WOPICore

/// One version of a file's content: the current one, or a body kept when a save replaced it
/// (`wopi serve --keep-versions`).
public struct FileVersionRecord: Sendable, Hashable {
    /// The file.
    public var fileID: ResourceID
    /// The file's `Version` while this content was current (``FileRecord/version``).
    public var version: Int64
    /// Size in bytes.
    public var size: Int64
    /// SHA-256 of the content, base64 (as CheckFileInfo's `SHA256`).
    public var sha256: String
    /// Where the bytes are. A kept body may share its key with the current content after a restore.
    public var blobKey: BlobKey
    /// When this content was saved.
    public var modifiedAt: Date
    /// Who saved it, when known (PutFile and restores record it; imports do not).
    public var modifiedBy: ResourceID?
    /// What kind of save made it, when the editor said (Collabora Online's PutFile headers); `nil` otherwise.
    public var saveKinds: SaveKinds?

    /// Creates a version record.
    public init(fileID: ResourceID, version: Int64, size: Int64, sha256: String, blobKey: BlobKey, modifiedAt: Date, modifiedBy: ResourceID?,
                saveKinds: SaveKinds? = nil) {
        self.fileID = fileID
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.blobKey = blobKey
        self.modifiedAt = modifiedAt
        self.modifiedBy = modifiedBy
        self.saveKinds = saveKinds
    }

    /// `Version` as WOPI sends it (`v12`).
    public var versionString: String { "v\(version)" }
}

/// What a save or a restore did: the file before and after, and the bodies nothing refers to any more.
public struct ContentChange: Sendable, Hashable {
    /// The file as it was before the change.
    public var previous: FileRecord
    /// The file as it is now.
    public var file: FileRecord
    /// Bodies no file and no kept version refers to any more: retire them (``WOPIBackend``
    /// waits ``WOPIHostConfiguration/retiredBodyGracePeriod`` first, so reads in flight finish).
    public var droppedBlobs: [BlobKey]

    /// Creates a change record.
    public init(previous: FileRecord, file: FileRecord, droppedBlobs: [BlobKey]) {
        self.previous = previous
        self.file = file
        self.droppedBlobs = droppedBlobs
    }
}
