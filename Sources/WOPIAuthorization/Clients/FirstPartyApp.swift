/// The provider's own app as an OAuth 2.0 client: public (no secret, RFC 6749 §2.1), PKCE S256
/// required (RFC 7636; RFC 8252 §6), redirecting to `<scheme>:/oauth2/callback` on one of the
/// provider's iOS URL schemes (RFC 8252 §7.1, private-use URI scheme redirection).
///
/// Its access token is the app's session with the host; with it the app asks
/// `POST /oauth2/app-to-app` for a code on Office's behalf.
public enum FirstPartyApp {
    /// The app's `client_id`.
    public static let clientID = "wopikit-app"
    /// The scheme used when the host has no iOS URL scheme configured.
    public static let fallbackScheme = "wopikit"
    /// The path of the app's redirect URI.
    public static let callbackPath = "/oauth2/callback"

    /// The app's redirect URI on `scheme`: `contoso:/oauth2/callback`.
    public static func redirectURI(scheme: String) -> String {
        "\(scheme):\(callbackPath)"
    }
}
