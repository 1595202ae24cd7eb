import Foundation

/// The trash's rules as pure functions: where a restored item goes and when a trashed item is purged.
///
/// A deleted file or folder is kept in its owner's trash, out of every listing and WOPI lookup, until it
/// is restored (same id, content, versions and shares) or purged with its bodies. Stores apply these
/// rules inside the transaction that restores or purges, so both drivers decide alike.
public enum TrashRules {
    /// Days a trashed item is kept before the host purges it, unless `wopi serve --trash-days` says otherwise.
    public static let defaultRetentionDays = 30
    /// The range `--trash-days` accepts: at least a day, at most a hundred years.
    public static let retentionDays: ClosedRange<Int> = 1...36_500

    /// Where a restore puts an item.
    public enum Destination: Sendable, Hashable {
        /// Back into the folder it was deleted from.
        case originalFolder(ResourceID)
        /// Into the owner's root, because the folder it was deleted from is itself in the trash or gone.
        case ownerRoot(ResourceID)

        /// The folder the item goes into.
        public var folderID: ResourceID {
            switch self {
            case .originalFolder(let id), .ownerRoot(let id): id
            }
        }
    }

    /// The folder a restored item goes into: the one it came from while that folder is live (neither
    /// in the trash nor purged), else the owner's root.
    public static func destination(originalFolder: ResourceID, originalFolderIsLive: Bool, ownerRoot: ResourceID) -> Destination {
        originalFolderIsLive ? .originalFolder(originalFolder) : .ownerRoot(ownerRoot)
    }

    /// The instant items trashed before are purged, with `days` of retention at `now`.
    public static func purgeCutoff(now: Date, retentionDays days: Int) -> Date {
        now.addingTimeInterval(-TimeInterval(days) * 86_400)
    }

    /// Whether an item trashed at `trashedAt` is past `days` of retention at `now`.
    public static func isExpired(trashedAt: Date, now: Date, retentionDays days: Int) -> Bool {
        trashedAt < purgeCutoff(now: now, retentionDays: days)
    }
}
