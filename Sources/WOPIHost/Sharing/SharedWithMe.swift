import WOPICore

/// The "Shared with me" container: a folder no one stores, one per user, listing what others shared with them.
///
/// It sits under the user's root (EnumerateChildren of the root lists it while something is shared with the
/// user) and is the second ancestor of every shared item seen from the user's side. Its id is
/// `shared-with-<user id>`: random ids are 32 hex digits, so it can never be a stored container's id, and
/// it names its one user, so a token for it is only honoured for that user.
package enum SharedWithMe {
    /// The container's name, as Office shows it.
    package static let name = "Shared with me"
    private static let prefix = "shared-with-"

    /// The container of `userID`.
    package static func id(for userID: ResourceID) -> ResourceID {
        ResourceID(prefix + userID.rawValue)!
    }

    /// The user whose "Shared with me" `id` is, or `nil` for any other id.
    package static func userID(in id: ResourceID) -> ResourceID? {
        guard id.rawValue.hasPrefix(prefix) else { return nil }
        return ResourceID(String(id.rawValue.dropFirst(prefix.count)))
    }

    /// The container as a record: owned by `user`, under their root.
    package static func container(for user: UserRecord) -> ContainerRecord {
        ContainerRecord(id: id(for: user.id), parentID: user.rootContainerID, ownerID: user.id, name: name)
    }
}
