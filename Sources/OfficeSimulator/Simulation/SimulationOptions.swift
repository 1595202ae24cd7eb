import Foundation
import OfficeURLScheme

/// Everything one simulated Office session needs: the invoke URI the app hands Office, the
/// provider's bootstrapper, how the user signs in, and the edit to save.
public struct SimulationOptions: Sendable {
    /// The user's web credentials, typed into the provider's sign-in page.
    public struct WebCredentials: Sendable, Hashable {
        /// The user name.
        public var username: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// The invoke URI, as `wopi link` makes it.
    public var invokeURI: OfficeInvokeURI
    /// The provider's bootstrapper URL, for example `https://contoso.com/wopibootstrapper`; `nil`
    /// only with ``accessToken``.
    public var bootstrapperURL: URL?
    /// Credentials for the web sign-in; `nil` when only app-to-app sign-in is possible.
    public var webCredentials: WebCredentials?
    /// The provider's app, "installed" on the simulated phone; `nil` when it is not. When set and
    /// the bootstrapper lists iOS URL schemes, Office signs in through it (apptoapp.rst).
    public var installedApp: (any AppSignInLauncher)?
    /// Office's registration with the provider.
    public var registration: OfficeClientRegistration
    /// The document's new content in edit mode; `nil` makes a deterministic change (see ``ContentEdit``).
    public var replacementContent: Data?
    /// The story to play; ``SimulationScenario/openEditSave`` unless told.
    public var scenario: SimulationScenario
    /// A WOPI access token for the invoke URI's WOPISrc. When set, sign-in is skipped, so the file
    /// scenarios run against a host that has no bootstrapper or OAuth server.
    public var accessToken: String?
    /// Whether the file gets its content back after the session: when the session wrote to the file (or tried
    /// to), the content it first read is written back under a lock of the simulator's own, so the next session
    /// starts from the file as this one found it. What cannot be put back is said in the result's or the
    /// failure's `leftovers`. `false` keeps what Office saved, as the real app does.
    public var putsContentBack: Bool

    /// Creates options.
    public init(
        invokeURI: OfficeInvokeURI,
        bootstrapperURL: URL?,
        webCredentials: WebCredentials? = nil,
        installedApp: (any AppSignInLauncher)? = nil,
        registration: OfficeClientRegistration = OfficeClientRegistration(),
        replacementContent: Data? = nil,
        scenario: SimulationScenario = .openEditSave,
        accessToken: String? = nil,
        putsContentBack: Bool = false
    ) {
        self.invokeURI = invokeURI
        self.bootstrapperURL = bootstrapperURL
        self.webCredentials = webCredentials
        self.installedApp = installedApp
        self.registration = registration
        self.replacementContent = replacementContent
        self.scenario = scenario
        self.accessToken = accessToken
        self.putsContentBack = putsContentBack
    }
}
