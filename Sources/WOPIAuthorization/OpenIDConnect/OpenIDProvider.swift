import Foundation

/// The operator's OpenID Connect provider, as the host's sign-in pages use it: where to send a browser,
/// and what a code it brings back proves (OpenID Connect Core 1.0 §3.1).
///
/// `WOPIOpenIDConnect`'s `OpenIDConnectClient` is the implementation `wopi serve --oidc-issuer` uses; the host itself
/// makes no outgoing HTTP requests.
public protocol OpenIDProvider: Sendable {
    /// What the button says after "Sign in with" (`--oidc-name`).
    var name: String { get }
    /// The issuer identifier, exactly as the provider's id_tokens carry it in `iss`.
    var issuer: String { get }
    /// The provider's authorization endpoint with the request's parameters (code flow, PKCE S256).
    func authorizationURL(for request: OpenIDAuthorizationRequest) -> String
    /// Redeems `code` at the provider's token endpoint and verifies the id_token it answers with.
    ///
    /// Answers within a few seconds: a provider that does not throws ``OpenIDSignInError`` with
    /// ``OpenIDSignInError/Reason/providerUnavailable``.
    func signIn(code: String, request: OpenIDAuthorizationRequest) async throws(OpenIDSignInError) -> OpenIDIdentity
    /// Verifies a token the provider issued to the provider's own app (`appClientID` at the provider), which the app
    /// presents to have the host answer Office's app-to-app sign-in (OAuth 2.0 Token Exchange, RFC 8693 §2.1).
    ///
    /// The token is a JWT the provider signed (an id_token, or a JWT access token, RFC 9068) whose `iss` is the
    /// issuer, whose times hold, and whose `azp` or `client_id`, else its only audience, is `appClientID`: a token the
    /// provider issued to any other app, even for the same person, is refused with
    /// ``OpenIDSignInError/Reason/wrongAudience``. Answers within a few seconds, like ``signIn(code:request:)``.
    func verifyAppToken(_ token: String, issuedTo appClientID: String) async throws(OpenIDSignInError) -> OpenIDIdentity
}

/// The parameters of one authorization request sent to the provider, and checked when it comes back.
public struct OpenIDAuthorizationRequest: Sendable, Hashable {
    /// The host's callback, registered at the provider exactly: `<public URL>/signin/oidc/callback`.
    public var redirectURI: String
    /// The single-use `state`.
    public var state: String
    /// The `nonce` the id_token must carry.
    public var nonce: String
    /// The PKCE code verifier (RFC 7636); its S256 challenge goes in the request.
    public var codeVerifier: String
    /// `ui_locales`, the page's language, so the provider can speak it too.
    public var uiLocales: String?

    /// Creates a request.
    public init(redirectURI: String, state: String, nonce: String, codeVerifier: String, uiLocales: String? = nil) {
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.uiLocales = uiLocales
    }
}

/// A person as a verified id_token describes them.
public struct OpenIDIdentity: Sendable, Hashable {
    /// `iss`.
    public var issuer: String
    /// `sub`: with ``issuer``, what the account is keyed by.
    public var subject: String
    /// The username claim (`preferred_username` unless configured otherwise), when the token has it.
    public var username: String?
    /// `name`, when the token has it.
    public var displayName: String?

    /// Creates an identity.
    public init(issuer: String, subject: String, username: String?, displayName: String?) {
        self.issuer = issuer
        self.subject = subject
        self.username = username
        self.displayName = displayName
    }
}

/// Why a sign-in through the provider was refused; the ``reason`` goes into the `signin.refused` audit
/// event, the ``detail`` into the log. Neither ever holds a token or a code.
public struct OpenIDSignInError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The id_token's `iss` is not the configured issuer.
        case wrongIssuer = "wrong_issuer"
        /// The id_token's `aud` does not name this host's client id, names others it does not trust, or `azp` is another client.
        case wrongAudience = "wrong_audience"
        /// The id_token has expired (beyond the allowed skew).
        case expired = "expired"
        /// The id_token's `nbf` or `iat` lies in the future (beyond the allowed skew).
        case notYetValid = "not_yet_valid"
        /// The id_token's `nonce` is missing or not this sign-in's.
        case nonceMismatch = "nonce_mismatch"
        /// The id_token's `alg` is not one the host accepts (`none`, HMAC, …).
        case algorithmNotAllowed = "alg_not_allowed"
        /// The id_token's signature does not verify with the provider's key.
        case badSignature = "bad_signature"
        /// The id_token names a key the provider's JWKS does not have, even after reading it again.
        case unknownKey = "unknown_key"
        /// The id_token or the token response cannot be read, or lacks a claim it must have.
        case malformedToken = "malformed_token"
        /// The provider's token endpoint refused the code.
        case codeRefused = "code_refused"
        /// The provider did not answer in time, or answered with something other than a token response.
        case providerUnavailable = "provider_unavailable"
    }

    /// What was wrong.
    public var reason: Reason
    /// One line for the log; never a token, a code or a secret.
    public var detail: String

    /// An error.
    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// The reason and the detail.
    public var description: String { "\(reason.rawValue): \(detail)" }
}
