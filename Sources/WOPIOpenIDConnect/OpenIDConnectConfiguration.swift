import Foundation

/// What the host needs to know of its OpenID Connect provider: `wopi serve --oidc-issuer … --oidc-client-id …
/// --oidc-client-secret-file …` and the optional settings.
public struct OpenIDConnectConfiguration: Sendable {
    /// The issuer identifier, exactly as the provider's discovery document and id_tokens give it.
    public var issuer: String
    /// The client id the provider registered for this host.
    public var clientID: String
    /// The client secret (never logged); `nil` for a public client that authenticates with PKCE alone.
    public var clientSecret: String?
    /// The scopes asked for; `openid` is always among them.
    public var scopes: [String]
    /// The provider's name on the "Sign in with …" button.
    public var name: String
    /// The id_token claim an account is named after on first sign-in; `sub` when the token lacks it.
    public var usernameClaim: String
    /// How far the provider's clock may be from this host's, for `exp`, `iat` and `nbf` (at most 60 seconds).
    public var allowedClockSkew: TimeInterval
    /// How long a sign-in may wait on the provider: the code exchange and any JWKS reading it needs, together.
    public var requestTimeout: Duration
    /// How long each request at start (the discovery document, the JWKS) may take.
    public var discoveryTimeout: Duration
    /// The least time between two readings of the JWKS caused by an unknown key id.
    public var keyRefetchInterval: TimeInterval
    /// The clock; tests move it.
    public var now: @Sendable () -> Date

    /// The id_token signature algorithms accepted: never `none`, never an HMAC.
    public static let acceptedAlgorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"]

    /// A configuration; throws ``OpenIDConnectConfigurationError`` when a value cannot work.
    public init(issuer: String, clientID: String, clientSecret: String?, scopes: [String] = ["openid", "profile"], name: String = "OpenID Connect",
                usernameClaim: String = "preferred_username", allowedClockSkew: TimeInterval = 60, requestTimeout: Duration = .seconds(4),
                discoveryTimeout: Duration = .seconds(10), keyRefetchInterval: TimeInterval = 60, now: @escaping @Sendable () -> Date = { Date() }) throws(OpenIDConnectConfigurationError) {
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme), url.host != nil,
              url.query == nil, url.fragment == nil else {
            throw .init("the issuer '\(issuer)' is not an http(s) URL without query or fragment")
        }
        guard scheme == "https" || ["127.0.0.1", "localhost", "::1"].contains(url.host ?? "") else {
            throw .init("the issuer '\(issuer)' must use https (plain http is allowed on loopback only)")
        }
        guard !clientID.isEmpty, clientID.utf8.count <= 255 else { throw .init("the client id must have 1 to 255 characters") }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 64 else { throw .init("the provider's name must have 1 to 64 characters") }
        guard !usernameClaim.isEmpty else { throw .init("the username claim must not be empty") }
        guard (0...60).contains(allowedClockSkew) else { throw .init("the allowed clock skew must be between 0 and 60 seconds") }
        let scopeWords = scopes.flatMap { $0.split(separator: " ").map(String.init) }
        guard scopeWords.allSatisfy({ $0.allSatisfy { $0.isASCII && !$0.isWhitespace && $0 != "\"" && $0 != "\\" } }) else {
            throw .init("a scope holds a character scopes cannot have")
        }
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret.flatMap { $0.isEmpty ? nil : $0 }
        self.scopes = scopeWords.contains("openid") ? scopeWords : ["openid"] + scopeWords
        self.name = name
        self.usernameClaim = usernameClaim
        self.allowedClockSkew = allowedClockSkew
        self.requestTimeout = requestTimeout
        self.discoveryTimeout = discoveryTimeout
        self.keyRefetchInterval = keyRefetchInterval
        self.now = now
    }

    /// Where the discovery document is: the issuer and `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4).
    public var discoveryURL: String {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }
}

/// A configuration value that cannot work; one line naming it.
public struct OpenIDConnectConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problem.
    public var description: String

    init(_ description: String) { self.description = description }
}
