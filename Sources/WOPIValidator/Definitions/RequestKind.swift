/// Every request element TestCases.xml may contain, with the HTTP shape Microsoft's runner gives it
/// (WOPI REST docs: files/*, containers/*, ecosystem/*).
public enum RequestKind: String, Sendable, Hashable, CaseIterable {
    /// The `CheckFileInfo` request element.
    case checkFileInfo = "CheckFileInfo"
    /// The `GetFile` request element.
    case getFile = "GetFile"
    /// The `PutFile` request element.
    case putFile = "PutFile"
    /// The `PutRelativeFile` request element.
    case putRelativeFile = "PutRelativeFile"
    /// The `Lock` request element.
    case lock = "Lock"
    /// The `Unlock` request element.
    case unlock = "Unlock"
    /// The `RefreshLock` request element.
    case refreshLock = "RefreshLock"
    /// The `UnlockAndRelock` request element.
    case unlockAndRelock = "UnlockAndRelock"
    /// The `GetLock` request element.
    case getLock = "GetLock"
    /// The `CheckEcosystem` request element.
    case checkEcosystem = "CheckEcosystem"
    /// The `GetNewAccessToken` request element.
    case getNewAccessToken = "GetNewAccessToken"
    /// The `GetRootContainer` request element.
    case getRootContainer = "GetRootContainer"
    /// The `CheckContainerInfo` request element.
    case checkContainerInfo = "CheckContainerInfo"
    /// The `EnumerateChildren` request element.
    case enumerateChildren = "EnumerateChildren"
    /// The `EnumerateAncestors` request element.
    case enumerateAncestors = "EnumerateAncestors"
    /// The `GetEcosystem` request element.
    case getEcosystem = "GetEcosystem"
    /// The `CreateChildContainer` request element.
    case createChildContainer = "CreateChildContainer"
    /// The `CreateChildFile` request element.
    case createChildFile = "CreateChildFile"
    /// The `DeleteFile` request element.
    case deleteFile = "DeleteFile"
    /// The `DeleteContainer` request element.
    case deleteContainer = "DeleteContainer"
    /// The `RenameContainer` request element.
    case renameContainer = "RenameContainer"
    /// The `RenameFile` request element.
    case renameFile = "RenameFile"
    /// The `GetFromFileUrl` request element.
    case getFromFileUrl = "GetFromFileUrl"
    /// The `GetShareUrl` request element.
    case getShareUrl = "GetShareUrl"
    /// The `AddActivities` request element.
    case addActivities = "AddActivities"
    /// The `PutUserInfo` request element.
    case putUserInfo = "PutUserInfo"
    /// The `GetCoauthLock` request element.
    case getCoauthLock = "GetCoauthLock"
    /// The `GetCoauthTable` request element.
    case getCoauthTable = "GetCoauthTable"
    /// The `RefreshCoauthLock` request element.
    case refreshCoauthLock = "RefreshCoauthLock"
    /// The `UnlockCoauthLock` request element.
    case unlockCoauthLock = "UnlockCoauthLock"
    /// The `GetChunkedFile` request element.
    case getChunkedFile = "GetChunkedFile"
    /// The `PutChunkedFile` request element.
    case putChunkedFile = "PutChunkedFile"
    /// The `GetSequenceNumber` request element.
    case getSequenceNumber = "GetSequenceNumber"
    /// The `Delay` request element.
    case delay = "Delay"

    /// False for the coauthoring and incremental-file-transfer requests, which this runner parses but does not
    /// send (their groups are excluded: Office for iOS uses neither). A case using one fails with a clear message.
    public var isExecutable: Bool {
        switch self {
        case .getCoauthLock, .getCoauthTable, .refreshCoauthLock, .unlockCoauthLock,
             .getChunkedFile, .putChunkedFile, .getSequenceNumber:
            return false
        default:
            return true
        }
    }

    /// The HTTP method.
    public var method: String {
        switch self {
        case .checkFileInfo, .getFile, .checkEcosystem, .getRootContainer, .checkContainerInfo,
             .enumerateChildren, .enumerateAncestors, .getEcosystem, .getFromFileUrl:
            return "GET"
        default:
            return "POST"
        }
    }

    /// What is appended to the resource URL's path.
    public var pathSuffix: String? {
        switch self {
        case .getFile, .putFile: return "/contents"
        case .enumerateChildren: return "/children"
        case .enumerateAncestors: return "/ancestry"
        case .getEcosystem: return "/ecosystem_pointer"
        case .getRootContainer: return "/root_container_pointer"
        default: return nil
        }
    }

    /// The `X-WOPI-Override` value.
    public var wopiOverride: String? {
        switch self {
        case .putFile: return "PUT"
        case .putRelativeFile: return "PUT_RELATIVE"
        case .lock, .unlockAndRelock: return "LOCK"
        case .unlock: return "UNLOCK"
        case .refreshLock: return "REFRESH_LOCK"
        case .getLock: return "GET_LOCK"
        case .getNewAccessToken: return "GET_NEW_ACCESS_TOKEN"
        case .createChildContainer: return "CREATE_CHILD_CONTAINER"
        case .createChildFile: return "CREATE_CHILD_FILE"
        case .deleteFile: return "DELETE"
        case .deleteContainer: return "DELETE_CONTAINER"
        case .renameContainer: return "RENAME_CONTAINER"
        case .renameFile: return "RENAME_FILE"
        case .getShareUrl: return "GET_SHARE_URL"
        case .addActivities: return "ADD_ACTIVITIES"
        case .putUserInfo: return "PUT_USER_INFO"
        case .getCoauthLock: return "GET_COAUTH_LOCK"
        case .getCoauthTable: return "GET_COAUTH_TABLE"
        case .refreshCoauthLock: return "REFRESH_COAUTH_LOCK"
        case .unlockCoauthLock: return "UNLOCK_COAUTH_LOCK"
        case .getChunkedFile: return "GET_CHUNKED_FILE"
        case .putChunkedFile: return "PUT_CHUNKED_FILE"
        case .getSequenceNumber: return "GET_SEQUENCE_NUMBER"
        default: return nil
        }
    }

    /// Whether the response body is read as text (JSON); GetFile bodies are binary.
    public var expectsTextResponse: Bool { self != .getFile }
}
