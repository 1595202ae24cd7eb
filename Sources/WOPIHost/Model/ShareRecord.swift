import Foundation
import WOPICore

/// A file or container its owner shared with another user, with the role that user gets on it and,
/// for a container, on everything under it.
public struct ShareRecord: Sendable, Hashable, Codable {
    /// What kind of item is shared.
    public enum ItemKind: String, Sendable, Hashable, Codable {
        /// A file: `/wopi/files/<id>`.
        case file
        /// A container and everything under it: `/wopi/containers/<id>`.
        case container
    }

    /// The shared file or container.
    public var itemID: ResourceID
    /// Whether ``itemID`` is a file or a container.
    public var itemKind: ItemKind
    /// The user the item is shared with.
    public var userID: ResourceID
    /// What that user may do: `AccessRole.viewer` or `AccessRole.editor`.
    public var role: AccessRole
    /// When the share was made or last changed.
    public var sharedAt: Date

    /// Creates a share record.
    public init(itemID: ResourceID, itemKind: ItemKind, userID: ResourceID, role: AccessRole, sharedAt: Date) {
        self.itemID = itemID
        self.itemKind = itemKind
        self.userID = userID
        self.role = role
        self.sharedAt = sharedAt
    }
}
