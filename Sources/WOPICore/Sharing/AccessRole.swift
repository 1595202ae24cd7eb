/// What a user may do with a file or container: see it, change it, or everything (its owner).
///
/// Roles are ordered: a user reaching an item along several paths (the item shared with them, a folder
/// above it shared with them) gets the highest role among them.
public enum AccessRole: String, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    /// Opens and reads; changes nothing.
    case viewer
    /// Reads and changes content, locks, names and children; cannot delete what it was given or re-share for editing.
    case editor
    /// The item's owner: everything.
    case owner

    /// The roles an owner may grant to someone else (`wopi shares add --role`).
    public static let grantable: [AccessRole] = [.viewer, .editor]

    /// The role a grant names, accepting only ``grantable`` roles; `nil` for anything else.
    public init?(grant: String) {
        guard let role = AccessRole(rawValue: grant), Self.grantable.contains(role) else { return nil }
        self = role
    }

    /// `viewer < editor < owner`.
    public static func < (lhs: AccessRole, rhs: AccessRole) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .viewer: 1
        case .editor: 2
        case .owner: 3
        }
    }

    /// The raw value.
    public var description: String { rawValue }
}
