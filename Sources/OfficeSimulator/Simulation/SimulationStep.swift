/// One step of the simulated Office for iOS session, reported as it finishes so a person can follow
/// along (issue 5; the order is operational_flows.rst's "Browsing and opening files" and "Saving and closing").
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
