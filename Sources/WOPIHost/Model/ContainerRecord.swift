import Foundation
import WOPICore

/// A folder. Every user has one root container; all others have a parent.
public struct ContainerRecord: Sendable, Hashable, Identifiable {
    /// The container's id in `/wopi/containers/<id>`.
    public var id: ResourceID
    /// The parent, `nil` for a user's root.
    public var parentID: ResourceID?
    /// The owner.
    public var ownerID: ResourceID
    /// The display name; free of characters Office for iOS refuses.
    public var name: String

    /// Creates a container record.
    public init(id: ResourceID, parentID: ResourceID?, ownerID: ResourceID, name: String) {
        self.id = id
        self.parentID = parentID
        self.ownerID = ownerID
        self.name = name
    }
}
