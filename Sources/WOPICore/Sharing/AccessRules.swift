/// Which role each WOPI operation needs, and how a refusal is answered — pure rules, no I/O, like
/// ``LockRules``.
///
/// The WOPI REST reference gives no status for "this user may read but not write"; every write
/// operation lists `404 Resource not found/user unauthorized`, so that is the answer (PutFile.rst,
/// RenameFile.rst, Lock.rst, DeleteFile.rst, CreateChildFile.rst, …). The exceptions follow the docs too:
/// PutRelativeFile must answer 501 whenever CheckFileInfo says `UserCanNotWriteRelative`
/// (PutRelativeFile.rst), and AddActivities, whose page lists no statuses, gets 401.
public enum AccessRules {
    /// What a caller's role allows for one operation.
    public enum Decision: Sendable, Hashable {
        /// The operation may run.
        case allowed
        /// Refused with this HTTP status; `reason` names the missing permission for logs and the body.
        case refused(status: Int, reason: String)
    }

    /// Decides `operation` (its ``WOPIOperation/name``) for a caller with `role` on the item.
    ///
    /// `containerRole` is the caller's role on the file's folder, which decides PutRelativeFile: a new
    /// file lands beside the original, so editing one shared file does not allow writing into its folder.
    public static func evaluate(_ operation: String, role: AccessRole, containerRole: AccessRole? = nil) -> Decision {
        guard let needed = requiredRole(operation, containerRole: containerRole) else { return .allowed }
        let effective = operation == "PutRelativeFile" ? (containerRole ?? .viewer) : role
        guard effective < needed else { return .allowed }
        let reason = "the \(effective) of this item may not \(operation)"
        switch operation {
        case "PutRelativeFile": return .refused(status: 501, reason: reason)
        case "AddActivities": return .refused(status: 401, reason: reason)
        default: return .refused(status: 404, reason: reason)
        }
    }

    /// The least role an operation needs; `nil` when any role may run it (reads, PutUserInfo, which is about the caller).
    static func requiredRole(_ operation: String, containerRole: AccessRole?) -> AccessRole? {
        switch operation {
        case "PutFile", "Lock", "Unlock", "RefreshLock", "UnlockAndRelock", "RenameFile", "AddActivities",
             "PutRelativeFile", "CreateChildContainer", "CreateChildFile", "RenameContainer":
            .editor
        case "DeleteFile", "DeleteContainer":
            .owner
        default:
            nil
        }
    }

    /// The CheckFileInfo permission flags for a role (CheckFileInfo.rst, "User permissions properties").
    public struct FilePermissions: Sendable, Hashable {
        /// `UserCanWrite`.
        public var userCanWrite: Bool
        /// `UserCanRename`.
        public var userCanRename: Bool
        /// `UserCanNotWriteRelative`.
        public var userCanNotWriteRelative: Bool
        /// `ReadOnly`: the file cannot be changed by this user.
        public var readOnly: Bool
    }

    /// The permission flags CheckFileInfo reports for `role` on a file, with `containerRole` on its folder.
    public static func filePermissions(role: AccessRole, containerRole: AccessRole?) -> FilePermissions {
        let canWrite = role >= .editor
        return FilePermissions(userCanWrite: canWrite, userCanRename: canWrite,
                               userCanNotWriteRelative: !(canWrite && (containerRole ?? .viewer) >= .editor), readOnly: !canWrite)
    }

    /// The share URL types (GetShareUrl.rst, `X-WOPI-UrlType`) a role may mint: a link never grants more than its maker has.
    public static func shareURLTypes(for role: AccessRole) -> [String] {
        role >= .editor ? ["ReadOnly", "ReadWrite"] : ["ReadOnly"]
    }
}
