/// Every request element TestCases.xml may contain, with the HTTP shape Microsoft's runner gives it
/// (WOPI REST docs: files/*, containers/*, ecosystem/*).
public enum RequestKind: String, Sendable, Hashable, CaseIterable {
    case checkFileInfo = "CheckFileInfo"
    case getFile = "GetFile"
    case putFile = "PutFile"
    case putRelativeFile = "PutRelativeFile"
    case lock = "Lock"
    case unlock = "Unlock"
    case refreshLock = "RefreshLock"
    case unlockAndRelock = "UnlockAndRelock"
    case getLock = "GetLock"
    case checkEcosystem = "CheckEcosystem"
    case getNewAccessToken = "GetNewAccessToken"
    case getRootContainer = "GetRootContainer"
    case checkContainerInfo = "CheckContainerInfo"
    case enumerateChildren = "EnumerateChildren"
    case enumerateAncestors = "EnumerateAncestors"
    case getEcosystem = "GetEcosystem"
    case createChildContainer = "CreateChildContainer"
    case createChildFile = "CreateChildFile"
    case deleteFile = "DeleteFile"
    case deleteContainer = "DeleteContainer"
    case renameContainer = "RenameContainer"
    case renameFile = "RenameFile"
    case getFromFileUrl = "GetFromFileUrl"
    case getShareUrl = "GetShareUrl"
    case addActivities = "AddActivities"
    case putUserInfo = "PutUserInfo"
    case getCoauthLock = "GetCoauthLock"
    case getCoauthTable = "GetCoauthTable"
    case refreshCoauthLock = "RefreshCoauthLock"
    case unlockCoauthLock = "UnlockCoauthLock"
    case getChunkedFile = "GetChunkedFile"
    case putChunkedFile = "PutChunkedFile"
    case getSequenceNumber = "GetSequenceNumber"
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
