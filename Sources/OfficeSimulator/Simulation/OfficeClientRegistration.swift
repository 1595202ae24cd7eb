/// How the simulated Office is registered with the provider's OAuth server: the client ID and secret
/// Office presents, the redirect URI its web view waits for, and the values Office adds to sign-in
/// requests (oauthparams.rst, clientsecret.rst).
public struct OfficeClientRegistration: Sendable, Hashable {
    /// `client_id` on the authorization request, the app-to-app request and the token request.
    public var clientID: String
    /// `client_secret` on the token request (sent in the form body, RFC 6749 §2.3.1).
    public var clientSecret: String
    /// `redirect_uri` of the web flow; the final 302 must point here.
    public var redirectURI: String
    /// `scope`.
    public var scope: String
    /// `rs` on the web flow (`en-US`) — the app-to-app request uses Office's `enUS` spelling.
    public var culture: String
    /// `build`: the Office build announced.
    public var build: String

    /// The client ID used when none is given: `wopikit-office`, the fixture the WOPIKit host's
    /// tests register for Office with `wopi serve --office-client-id`.
    public static let defaultClientID = "wopikit-office"
    /// The client secret used when none is given: `wopikit-office-secret`.
    public static let defaultClientSecret = "wopikit-office-secret"
    /// The redirect URI Office's web view waits for, `https://localhost` (apptoapp.rst example).
    public static let defaultRedirectURI = "https://localhost"

    /// Creates a registration; every value has the documented default.
    public init(
        clientID: String = Self.defaultClientID,
        clientSecret: String = Self.defaultClientSecret,
        redirectURI: String = Self.defaultRedirectURI,
        scope: String = "wopi",
        culture: String = "en-US",
        build: String = "16.0.0.0"
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.scope = scope
        self.culture = culture
        self.build = build
    }
}
