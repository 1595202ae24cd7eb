import Foundation

/// The parts of a provider's discovery document the host uses (OpenID Connect Discovery 1.0 §3).
public struct OpenIDProviderMetadata: Sendable, Hashable, Decodable {
    /// `issuer`: must equal the configured issuer exactly.
    public var issuer: String
    /// `authorization_endpoint`.
    public var authorizationEndpoint: String
    /// `token_endpoint`.
    public var tokenEndpoint: String
    /// `jwks_uri`.
    public var jwksURI: String
    /// `token_endpoint_auth_methods_supported`; absent means `client_secret_basic`.
    public var tokenEndpointAuthMethods: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
    }

    /// Creates metadata.
    public init(issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String, tokenEndpointAuthMethods: [String]? = nil) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.tokenEndpointAuthMethods = tokenEndpointAuthMethods
    }

    /// Whether the token endpoint takes the client secret in the form body rather than HTTP Basic.
    var postsClientSecret: Bool {
        guard let methods = tokenEndpointAuthMethods, !methods.isEmpty else { return false }
        return !methods.contains("client_secret_basic") && methods.contains("client_secret_post")
    }
}
