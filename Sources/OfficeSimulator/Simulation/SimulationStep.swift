/// One step of the simulated Office for iOS session, reported as it finishes so a person can follow
/// along (the order is operational_flows.rst's "Browsing and opening files" and "Saving and closing").
public struct SimulationStep: Sendable, Hashable {
    /// The steps, in the order Office takes them.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable {
        /// Parse and check the invoke URI (from_app.rst).
        case invokeURI = "invoke-uri"
        /// Call the bootstrapper without a token and read the 401 challenge (bootstrapper.rst).
        case bootstrapperChallenge = "bootstrapper-challenge"
        /// Sign in through the storage provider's app (apptoapp.rst).
        case appSignIn = "app-signin"
        /// Sign in on the provider's web pages, as in Office's web view (RFC 6749 §4.1).
        case webSignIn = "web-signin"
        /// Exchange the authorization code at the token endpoint (RFC 6749 §4.1.3, tokenissuance.rst).
        case tokenExchange = "token-exchange"
        /// The authenticated Bootstrap call (Bootstrap.rst).
        case bootstrap = "bootstrap"
        /// GET_NEW_ACCESS_TOKEN for the WOPISrc (GetNewAccessToken.rst).
        case getNewAccessToken = "get-new-access-token"
        /// CheckFileInfo (CheckFileInfo.rst).
        case checkFileInfo = "check-file-info"
        /// GetLock (GetLock.rst).
        case getLock = "get-lock"
        /// RefreshLock with a lock Office never took; it must fail (operational_flows.rst).
        case refreshLockProbe = "refresh-lock-probe"
        /// Lock (Lock.rst).
        case lock = "lock"
        /// GetFile (GetFile.rst).
        case getFile = "get-file"
        /// PutFile with the lock (PutFile.rst).
        case putFile = "put-file"
        /// CheckFileInfo again: the Version must have changed (CheckFileInfo.rst, Version).
        case checkFileInfoAfterSave = "check-file-info-after-save"
        /// Unlock (Unlock.rst).
        case unlock = "unlock"
        /// Build the passback Office sends on the back arrow (seed 000).
        case passback = "passback"

        // Access-token mode and the scenarios.
        /// Whether the scenario applies to this host (a skipped step says why not).
        case scenarioApplies = "scenario-applies"
        /// Sign-in skipped: the WOPI access token was given (`--access-token`).
        case givenAccessToken = "given-access-token"
        /// GET_ROOT_CONTAINER at the bootstrapper (GetRootContainer.rst).
        case getRootContainer = "get-root-container"
        /// CheckContainerInfo on a folder (CheckContainerInfo.rst).
        case checkContainerInfo = "check-container-info"
        /// EnumerateChildren with `X-WOPI-FileExtensionFilterList` (EnumerateChildren.rst).
        case enumerateChildren = "enumerate-children"
        /// CheckFileInfo on a file found while browsing; licensing must equal its folder's.
        case checkListedFileInfo = "check-listed-file-info"
        /// EnumerateAncestors of the file, to find its folder (EnumerateAncestors.rst).
        case enumerateAncestors = "enumerate-ancestors"
        /// CreateChildFile in the file's folder (CreateChildFile.rst).
        case createChildFile = "create-child-file"
        /// PutRelativeFile with a suggested name (PutRelativeFile.rst).
        case putRelativeFile = "put-relative-file"
        /// CheckFileInfo and GetFile on the file a scenario made.
        case openNewFile = "open-new-file"
        /// RenameFile with the lock (RenameFile.rst).
        case renameFile = "rename-file"
        /// CheckFileInfo after RenameFile: the same WOPISrc, the new name.
        case checkFileInfoAfterRename = "check-file-info-after-rename"
        /// RenameFile back to the file's first name, so the next scenario finds the file as this one did.
        case renameFileBack = "rename-file-back"
        /// Another device locks the file (played by the simulator with a lock of its own).
        case otherDeviceLock = "other-device-lock"
        /// Lock while another device holds the lock: 409 with that lock (Lock.rst).
        case lockConflict = "lock-conflict"
        /// PutFile while another device holds the lock: 409 with that lock (PutFile.rst).
        case putFileConflict = "put-file-conflict"
        /// GetFile and CheckFileInfo after the refused write: nothing changed.
        case contentUntouched = "content-untouched"
        /// The other device releases its lock.
        case otherDeviceUnlock = "other-device-unlock"
        /// The refresh-token grant at the token endpoint (RFC 6749 §6).
        case refreshToken = "refresh-token"
        /// GET_NEW_ACCESS_TOKEN with the refreshed OAuth token.
        case getNewAccessTokenAfterRefresh = "get-new-access-token-after-refresh"
        /// PutFile whose connection drops halfway through the body.
        case interruptedPutFile = "interrupted-put-file"
        /// The passback Office sends while the upload is pending (`|z|yes|`).
        case pendingPassback = "pending-passback"
        /// CheckFileInfo after the dropped upload: the host kept nothing of it.
        case checkFileInfoAfterDrop = "check-file-info-after-drop"

        // Browser editors (`--client`).
        /// Read the host page and its form, as a browser does before posting it to the editor (online/hostpage.rst).
        case hostPage = "host-page"
        /// RefreshLock with the lock the editor holds, as it does every few minutes (RefreshLock.rst).
        case refreshLock = "refresh-lock"
        /// Collabora Online's autosave: PutFile with the X-COOL-WOPI headers and the last LastModifiedTime.
        case autosave = "autosave"
        /// Another writer saves the file between two autosaves (played by the simulator).
        case otherWriter = "other-writer"
        /// An autosave whose X-COOL-WOPI-Timestamp is older than the file: 409 with COOLStatusCode 1010.
        case staleAutosave = "stale-autosave"
        /// Collabora Online's save on close, sent without the timestamp as its "overwrite" is.
        case exitSave = "exit-save"
        /// Collabora Online reads the template CheckFileInfo's `TemplateSource` names, instead of GetFile, for a new document.
        case templateSource = "template-source"

        /// The name a person reads.
        public var title: String {
            switch self {
            case .invokeURI: "Invoke URI"
            case .bootstrapperChallenge: "Bootstrapper challenge"
            case .appSignIn: "App-to-app sign-in"
            case .webSignIn: "Web sign-in"
            case .tokenExchange: "Token exchange"
            case .bootstrap: "Bootstrap"
            case .getNewAccessToken: "GetNewAccessToken"
            case .checkFileInfo: "CheckFileInfo"
            case .getLock: "GetLock"
            case .refreshLockProbe: "RefreshLock with a made-up lock"
            case .lock: "Lock"
            case .getFile: "GetFile"
            case .putFile: "PutFile"
            case .checkFileInfoAfterSave: "CheckFileInfo after PutFile"
            case .unlock: "Unlock"
            case .passback: "Passback"
            case .scenarioApplies: "Scenario applies"
            case .givenAccessToken: "Given access token"
            case .getRootContainer: "GetRootContainer"
            case .checkContainerInfo: "CheckContainerInfo"
            case .enumerateChildren: "EnumerateChildren"
            case .checkListedFileInfo: "CheckFileInfo of a listed file"
            case .enumerateAncestors: "EnumerateAncestors"
            case .createChildFile: "CreateChildFile"
            case .putRelativeFile: "PutRelativeFile"
            case .openNewFile: "Open the new file"
            case .renameFile: "RenameFile"
            case .checkFileInfoAfterRename: "CheckFileInfo after RenameFile"
            case .renameFileBack: "RenameFile back"
            case .otherDeviceLock: "Another device locks the file"
            case .lockConflict: "Lock while another device holds the lock"
            case .putFileConflict: "PutFile while another device holds the lock"
            case .contentUntouched: "Content untouched"
            case .otherDeviceUnlock: "Another device unlocks the file"
            case .refreshToken: "Refresh-token grant"
            case .getNewAccessTokenAfterRefresh: "GetNewAccessToken after the refresh"
            case .interruptedPutFile: "PutFile, connection dropped halfway"
            case .pendingPassback: "Passback while the upload is pending"
            case .checkFileInfoAfterDrop: "CheckFileInfo after the dropped upload"
            case .hostPage: "Host page"
            case .refreshLock: "RefreshLock"
            case .autosave: "Autosave"
            case .otherWriter: "Another writer saves"
            case .staleAutosave: "Autosave with a stale timestamp"
            case .exitSave: "Exit save"
            case .templateSource: "TemplateSource"
            }
        }
    }

    /// How a step ended.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The host answered as Office expects.
        case passed
        /// Office would not take this step here (for example no lock in view mode).
        case skipped
        /// The host answered something Office would not accept; the session stops.
        case failed
    }

    /// Which step.
    public let name: Name
    /// How it ended.
    public let outcome: Outcome
    /// What happened, in one line: what was checked, or why it failed.
    public let detail: String

    /// Creates a step report.
    public init(name: Name, outcome: Outcome, detail: String) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
    }
}
