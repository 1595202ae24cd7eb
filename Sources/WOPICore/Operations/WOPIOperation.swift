/// The name of the WOPI operation a request asks for, as the WOPI REST reference names it
/// (docs/rest/src/files/, docs/rest/src/containers/, docs/rest/src/ecosystem/).
///
/// Metrics label requests with it, so it is a small closed set: never a URL, an id or a token.
/// Requests that are not WOPI operations get a coarse name (`OAuthAuthorize`, `Share`, `Health`, …)
/// and anything unrecognised is `Other` (or `Unknown` for a WOPI URL with an unknown override).
public struct WOPIOperation: Sendable, Hashable, CustomStringConvertible {
    /// The operation's name, e.g. `PutFile`.
    public let name: String

    /// The name.
    public var description: String { name }

    private init(_ name: String) { self.name = name }

    /// Names the operation of a request from its method, its path (without query) and its
    /// `X-WOPI-Override` header; `hasOldLock` tells `Lock` from `UnlockAndRelock`
    /// (both are `X-WOPI-Override: LOCK`, the latter with `X-WOPI-OldLock`).
    public init(method: String, path: String, override: String?, hasOldLock: Bool = false) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let method = method.uppercased()
        let override = override?.uppercased()
        self.init(Self.name(method: method, segments: segments, override: override, hasOldLock: hasOldLock))
    }

    private static func name(method: String, segments: [String], override: String?, hasOldLock: Bool) -> String {
        guard let first = segments.first else { return "Other" }
        switch first {
        case "wopi": return wopiName(method: method, segments: Array(segments.dropFirst()), override: override, hasOldLock: hasOldLock)
        case "health": return "Health"
        case "share": return "Share"
        case "wopibootstrapper": return method == "POST" ? "BootstrapperEcosystem" : "Bootstrapper"
        case "oauth2":
            switch segments.dropFirst().first {
            case "authorize": return "OAuthAuthorize"
            case "token": return "OAuthToken"
            case "app-to-app": return "OAuthAppToApp"
            default: return "Other"
            }
        default: return "Other"
        }
    }

    private static func wopiName(method: String, segments: [String], override: String?, hasOldLock: Bool) -> String {
        guard let kind = segments.first else { return "Other" }
        let rest = Array(segments.dropFirst(kind == "ecosystem" ? 1 : 2))
        switch (kind, method, rest.first) {
        case ("files", "GET", nil): return "CheckFileInfo"
        case ("files", "GET", "contents"): return "GetFile"
        case ("files", "POST", "contents"): return "PutFile"
        case ("files", "POST", "activities"): return "AddActivities"
        case ("files", "GET", "ancestry"), ("containers", "GET", "ancestry"): return "EnumerateAncestors"
        case ("files", "GET", "ecosystem_pointer"), ("containers", "GET", "ecosystem_pointer"): return "GetEcosystem"
        case ("files", "POST", nil): return fileOverride(override, hasOldLock: hasOldLock)
        case ("containers", "GET", nil): return "CheckContainerInfo"
        case ("containers", "GET", "children"): return "EnumerateChildren"
        case ("containers", "POST", nil): return containerOverride(override)
        case ("ecosystem", "GET", nil): return "CheckEcosystem"
        case ("ecosystem", "GET", "root_container_pointer"): return "GetRootContainer"
        default: return "Other"
        }
    }

    private static func fileOverride(_ override: String?, hasOldLock: Bool) -> String {
        switch override {
        case "LOCK": hasOldLock ? "UnlockAndRelock" : "Lock"
        case "GET_LOCK": "GetLock"
        case "REFRESH_LOCK": "RefreshLock"
        case "UNLOCK": "Unlock"
        case "PUT_RELATIVE": "PutRelativeFile"
        case "RENAME_FILE": "RenameFile"
        case "DELETE": "DeleteFile"
        case "PUT_USER_INFO": "PutUserInfo"
        case "GET_SHARE_URL": "GetShareUrl"
        case "ADD_ACTIVITIES": "AddActivities"
        default: "Unknown"
        }
    }

    private static func containerOverride(_ override: String?) -> String {
        switch override {
        case "CREATE_CHILD_CONTAINER": "CreateChildContainer"
        case "CREATE_CHILD_FILE": "CreateChildFile"
        case "DELETE_CONTAINER", "DELETE": "DeleteContainer"
        case "RENAME_CONTAINER": "RenameContainer"
        case "GET_SHARE_URL": "GetShareUrl"
        default: "Unknown"
        }
    }
}
