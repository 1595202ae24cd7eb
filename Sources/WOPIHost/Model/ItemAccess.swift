import WOPICore

/// Everything one WOPI file request needs about its caller and file, read by the store in one step
/// (``WOPIStore/fileAccess(_:by:)``): the user, the file, the user's role on it and on its folder, and the
/// folder's name for CheckFileInfo's breadcrumb.
public struct FileAccess: Sendable, Hashable {
    /// The caller.
    public var user: UserRecord
    /// The file; `nil` when it does not exist.
    public var file: FileRecord?
    /// The caller's role on the file; `nil` when they may not open it (or it does not exist).
    public var role: AccessRole?
    /// The caller's role on the file's folder; `nil` when they may not open the folder.
    public var containerRole: AccessRole?
    /// The name of the file's folder, `""` when the file does not exist.
    public var containerName: String

    /// Creates a file access record.
    public init(user: UserRecord, file: FileRecord?, role: AccessRole?, containerRole: AccessRole?, containerName: String) {
        self.user = user
        self.file = file
        self.role = role
        self.containerRole = containerRole
        self.containerName = containerName
    }

    /// The access the sharing rule gives `user` to an existing `file`: `AccessRole.owner` on the file and its folder
    /// for the owner; otherwise the higher of `fileShare` (shared on the file) and `folderShare` (the best share on
    /// its folder or any folder above), and `folderShare` on the folder. Every store applies the rule through this.
    public init(user: UserRecord, file: FileRecord, containerName: String, folderShare: AccessRole?, fileShare: AccessRole?) {
        if file.ownerID == user.id {
            self.init(user: user, file: file, role: .owner, containerRole: .owner, containerName: containerName)
        } else {
            self.init(user: user, file: file, role: [folderShare, fileShare].compactMap { $0 }.max(), containerRole: folderShare,
                      containerName: containerName)
        }
    }
}

/// The caller, a container and the caller's role on it, read by the store in one step (``WOPIStore/containerAccess(_:by:)``).
public struct ContainerAccess: Sendable, Hashable {
    /// The caller.
    public var user: UserRecord
    /// The container; `nil` when it does not exist.
    public var container: ContainerRecord?
    /// The caller's role on the container; `nil` when they may not open it (or it does not exist).
    public var role: AccessRole?

    /// Creates a container access record.
    public init(user: UserRecord, container: ContainerRecord?, role: AccessRole?) {
        self.user = user
        self.container = container
        self.role = role
    }

    /// The access the sharing rule gives `user` to an existing `container`: `AccessRole.owner` for its owner,
    /// otherwise `sharedRole`, the best share on it or any container above it.
    public init(user: UserRecord, container: ContainerRecord, sharedRole: AccessRole?) {
        self.init(user: user, container: container, role: container.ownerID == user.id ? .owner : sharedRole)
    }
}
