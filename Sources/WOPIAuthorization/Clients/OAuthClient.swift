import Foundation
import WOPIHost

/// A client the authorization server knows (RFC 6749 §2): Office, or the provider's own app.
struct OAuthClient: Sendable, Hashable {
    /// `client_id`.
    var id: String
    /// The name the consent page shows.
    var displayName: String
    /// The secret's digest for a confidential client; `nil` for a public one.
    var secretDigest: SecretDigest?
    /// Registered redirect URIs, compared after ``RedirectURI/normalized(_:)``.
    var redirectURIs: [String]
    /// Whether authorization requests must carry a PKCE S256 challenge.
    var requiresPKCE: Bool
    /// Whether each authorization issues a session context `sc` (Office sends it back as X-WOPI-SessionContext).
    var issuesSessionContext: Bool
    /// The provider's own app: trusted, so no consent step, and its tokens may call `/oauth2/app-to-app`.
    var isFirstParty: Bool

    /// The registered URI equal to `candidate`, if any.
    func registeredRedirect(matching candidate: String) -> String? {
        let wanted = RedirectURI.normalized(candidate)
        return redirectURIs.first { RedirectURI.normalized($0) == wanted }
    }

    /// The clients of a registration: Office (confidential) and the provider's app (public, PKCE).
    static func clients(for registration: OfficeRegistration) -> [OAuthClient] {
        let schemes = registration.iOSURLSchemes.isEmpty ? [FirstPartyApp.fallbackScheme] : registration.iOSURLSchemes
        return [
            OAuthClient(id: registration.clientID, displayName: "Microsoft Office", secretDigest: registration.clientSecretDigest,
                        redirectURIs: [registration.redirectURI], requiresPKCE: false, issuesSessionContext: true, isFirstParty: false),
            OAuthClient(id: FirstPartyApp.clientID, displayName: "WOPIKit app", secretDigest: nil,
                        redirectURIs: schemes.map(FirstPartyApp.redirectURI(scheme:)), requiresPKCE: true,
                        issuesSessionContext: false, isFirstParty: true),
        ]
    }
}

/// Redirect URI comparison (RFC 6749 §3.1.2.3: simple string comparison, RFC 3986 §6.2.1) with
/// only the normalizations RFC 3986 §6.2.2–6.2.3 define as equivalent: case of scheme and host,
/// and an empty path being `/` for http(s).
enum RedirectURI {
    static func normalized(_ uri: String) -> String {
        guard var components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else { return uri }
        components.scheme = scheme
        if let host = components.host { components.host = host.lowercased() }
        if ["http", "https"].contains(scheme), components.path.isEmpty { components.path = "/" }
        return components.string ?? uri
    }

    /// `uri` with `parameters` appended to its query (RFC 6749 §4.1.2: "retaining any existing query").
    static func appending(_ parameters: [(String, String?)], to uri: String) -> String {
        let present = parameters.compactMap { pair in pair.1.map { (pair.0, $0) } }
        let query = FormFields(present).encoded
        guard !query.isEmpty else { return uri }
        var base = uri
        var fragment = ""
        if let hash = base.firstIndex(of: "#") { fragment = String(base[hash...]); base = String(base[..<hash]) }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + query + fragment
    }
}
