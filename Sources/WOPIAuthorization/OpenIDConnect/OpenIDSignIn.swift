import Foundation

/// Sign-in through an OpenID Connect provider (``WOPIHost/WOPIHostConfiguration/openIDSignIn``): a "Sign in with …"
/// button on the web front's sign-in and on the authorization page Office opens, beside the password
/// form or, with ``passwordFormsHidden``, instead of it.
///
/// The host's callback is `<public URL>/signin/oidc/callback`; the provider must have it registered exactly.
/// A person signing in for the first time gets an account keyed by (issuer, `sub`) (`IdentityLinkStore`).
public struct OpenIDSignIn: Sendable {
    /// The provider.
    public var provider: any OpenIDProvider
    /// No password form anywhere (`--oidc-only`): the pages offer only the provider, and a password
    /// posted anyway is refused.
    public var passwordFormsHidden: Bool
    /// How long a browser may stay at the provider before its sign-in expires.
    public var pendingLifetime: TimeInterval = 600
    /// The client id the provider registered for the provider's own iOS app (`--oidc-app-client-id`). When set, the
    /// app answers Office's app-to-app sign-in by exchanging a token the provider issued to it at `POST /oauth2/token`
    /// (RFC 8693), with no password typed; tokens the provider issued to any other client are refused.
    public var appClientID: String?
    /// The longest a person who signed in through the provider keeps Office's access without signing in there
    /// again (`--oidc-session-lifetime`): refreshing Office's token never carries its grant past this, so a person
    /// the provider no longer lets in loses access within it. `wopi users sign-out` ends it at once.
    public var sessionLifetime: TimeInterval = 12 * 3600

    /// The path, below the public URL, that starts a sign-in at the provider.
    public static let startPath = "/signin/oidc"
    /// The path, below the public URL, the provider sends the browser back to; register
    /// `<public URL>/signin/oidc/callback` at the provider exactly.
    public static let callbackPath = "/signin/oidc/callback"

    /// Sign-in through `provider`.
    public init(provider: any OpenIDProvider, passwordFormsHidden: Bool = false, appClientID: String? = nil,
                sessionLifetime: TimeInterval = 12 * 3600) {
        self.provider = provider
        self.passwordFormsHidden = passwordFormsHidden
        self.appClientID = appClientID
        self.sessionLifetime = sessionLifetime
    }
}
