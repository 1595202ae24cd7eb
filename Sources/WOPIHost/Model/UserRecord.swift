import Foundation
import WOPICore

/// A person who signs in to the host and owns files.
public struct UserRecord: Sendable, Hashable, Identifiable {
    /// Stable id, used as WOPI `UserId`/`OwnerId`; never contains characters Office refuses.
    public var id: ResourceID
    /// The sign-in name, unique.
    public var name: String
    /// The name shown in Office (`UserFriendlyName`).
    public var displayName: String
    /// The stored password hash; never the password.
    public var passwordHash: PasswordHash
    /// The user's root container.
    public var rootContainerID: ResourceID
    /// Free-form data Office stores per user with PutUserInfo (`UserInfo` in CheckFileInfo).
    public var userInfo: String?

    /// Creates a user record.
    public init(id: ResourceID, name: String, displayName: String, passwordHash: PasswordHash,
                rootContainerID: ResourceID, userInfo: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.rootContainerID = rootContainerID
        self.userInfo = userInfo
    }
}
