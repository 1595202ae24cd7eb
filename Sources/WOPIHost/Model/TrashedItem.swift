import Foundation
import WOPICore

/// A file or folder in its owner's trash: gone for WOPI and every listing, kept with its content,
/// versions and shares until it is restored (``WOPIStore/restoreFromTrash(_:as:)``) or purged
/// (``WOPIStore/emptyTrash(ownedBy:trashedBefore:)``).
public struct TrashedItem: Sendable, Hashable, Identifiable {
    /// The item's own id, which it keeps in the trash and after a restore.
    public var id: ResourceID
    /// Whether ``id`` names a file or a folder (a folder is trashed with everything under it).
    public var kind: ShareRecord.ItemKind
    /// The owner, whose trash it is in.
    public var ownerID: ResourceID
    /// The item's name.
    public var name: String
    /// The folder it was deleted from; a restore goes back there when it is still live.
    public var originalFolderID: ResourceID
    /// When it was moved to the trash.
    public var trashedAt: Date
    /// Bytes of content: the file's size, or the sum of the files under the folder.
    public var size: Int64

    /// Creates a trashed-item record.
    public init(id: ResourceID, kind: ShareRecord.ItemKind, ownerID: ResourceID, name: String, originalFolderID: ResourceID,
                trashedAt: Date, size: Int64) {
        self.id = id
        self.kind = kind
        self.ownerID = ownerID
        self.name = name
        self.originalFolderID = originalFolderID
        self.trashedAt = trashedAt
        self.size = size
    }
}

/// What ``WOPIStore/restoreFromTrash(_:as:)`` did.
public struct TrashRestore: Sendable, Hashable {
    /// The item as it was in the trash (its old name).
    public var item: TrashedItem
    /// Where it went: its original folder, or the owner's root when that folder is in the trash or gone.
    public var destination: TrashRules.Destination
    /// The name it has now (the `as` name when one was given).
    public var name: String

    /// Creates a restore result.
    public init(item: TrashedItem, destination: TrashRules.Destination, name: String) {
        self.item = item
        self.destination = destination
        self.name = name
    }
}

/// What ``WOPIStore/emptyTrash(ownedBy:trashedBefore:)`` removed.
public struct TrashPurge: Sendable, Hashable {
    /// The items removed for good.
    public var removed: [TrashedItem]
    /// The bodies (current content and kept versions) nothing refers to any more: delete them from the ``BlobStore``.
    public var blobs: [BlobKey]

    /// Creates a purge result.
    public init(removed: [TrashedItem], blobs: [BlobKey]) {
        self.removed = removed
        self.blobs = blobs
    }
}
