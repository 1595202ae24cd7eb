import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import WOPIAuthorization
import WOPICore

/// The host's client of its OpenID Connect provider: the discovery document and JWKS read at start, the
/// authorization request (code flow with PKCE S256), the code redeemed at the token endpoint, and the
/// id_token verified (signature through JWTKit against the JWKS; `iss`, `aud`/`azp`, `exp`/`iat`/`nbf`
/// and `nonce` by ``IDTokenClaims``).
///
/// ```swift
/// let configuration = try OpenIDConnectConfiguration(issuer: "https://id.contoso.com", clientID: "wopikit", clientSecret: secret)
/// let provider = try await OpenIDConnectClient.discover(configuration)
/// hostConfiguration.openIDSignIn = OpenIDSignIn(provider: provider)
/// ```
public final class OpenIDConnectClient: OpenIDProvider {
    /// The configuration.
    public let configuration: OpenIDConnectConfiguration
    /// The provider's discovery document, as read at start.
    public let metadata: OpenIDProviderMetadata
    private let http: ProviderHTTP
    private let keySet: ProviderKeySet

    /// What the button says after "Sign in with".
    public var name: String { configuration.name }
    /// The configured issuer.
    public var issuer: String { configuration.issuer }

    private init(configuration: OpenIDConnectConfiguration, metadata: OpenIDProviderMetadata, http: ProviderHTTP, keySet: ProviderKeySet) {
        self.configuration = configuration
        self.metadata = metadata
        self.http = http
        self.keySet = keySet
    }

    /// Reads the issuer's discovery document and JWKS; throws when the issuer cannot be reached, its document
    /// names another issuer or lacks an endpoint, or its JWKS holds no usable key.
    public static func discover(_ configuration: OpenIDConnectConfiguration, httpClient: HTTPClient = .shared,
                                logger: Logger = Logger(label: "wopi.oidc")) async throws(OpenIDDiscoveryError) -> OpenIDConnectClient {
        let http = ProviderHTTP(client: httpClient, timeout: configuration.requestTimeout)
        let startHTTP = ProviderHTTP(client: httpClient, timeout: configuration.discoveryTimeout)
        let url = configuration.discoveryURL
        let answer: ProviderHTTP.Answer
        do { answer = try await startHTTP.get(url) } catch { throw .unreachable(url: url, detail: error.description) }
        guard answer.status == 200 else { throw .unreachable(url: url, detail: "HTTP \(answer.status)") }
        let metadata: OpenIDProviderMetadata
        do { metadata = try JSONDecoder().decode(OpenIDProviderMetadata.self, from: answer.body) } catch {
            throw .invalidDocument(url: url, detail: "it lacks issuer, authorization_endpoint, token_endpoint or jwks_uri")
        }
        guard metadata.issuer == configuration.issuer else { throw .issuerMismatch(configured: configuration.issuer, document: metadata.issuer) }
        for (name, endpoint) in [("authorization_endpoint", metadata.authorizationEndpoint), ("token_endpoint", metadata.tokenEndpoint),
                                 ("jwks_uri", metadata.jwksURI)] {
            guard let endpointURL = URL(string: endpoint), ["https", "http"].contains(endpointURL.scheme?.lowercased() ?? ""), endpointURL.host != nil else {
                throw .invalidDocument(url: url, detail: "\(name) is not an http(s) URL")
            }
        }
        let keySet = ProviderKeySet(url: metadata.jwksURI, http: http, refetchInterval: configuration.keyRefetchInterval, now: configuration.now,
                                    logger: logger)
        try await keySet.load(through: startHTTP)
        return OpenIDConnectClient(configuration: configuration, metadata: metadata, http: http, keySet: keySet)
    }

    /// The authorization endpoint with `response_type=code`, the client, the exact callback, the scopes, `state`,
    /// `nonce`, the S256 challenge of the verifier, and `ui_locales`.
    public func authorizationURL(for request: OpenIDAuthorizationRequest) -> String {
        let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(request.codeVerifier.utf8))))
        var parameters = [("response_type", "code"), ("client_id", configuration.clientID), ("redirect_uri", request.redirectURI),
                          ("scope", configuration.scopes.joined(separator: " ")), ("state", request.state), ("nonce", request.nonce),
                          ("code_challenge", challenge), ("code_challenge_method", "S256")]
        if let locales = request.uiLocales { parameters.append(("ui_locales", locales)) }
        let query = parameters.map { "\($0.0)=\(ProviderHTTP.formEncode($0.1))" }.joined(separator: "&")
        let endpoint = metadata.authorizationEndpoint
        return endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    /// Redeems `code` with the verifier at the token endpoint and verifies the id_token of the answer, all within
    /// ``OpenIDConnectConfiguration/requestTimeout`` (a JWKS read for a rotated key included).
    public func signIn(code: String, request: OpenIDAuthorizationRequest) async throws(OpenIDSignInError) -> OpenIDIdentity {
        try await withinRequestTimeout { () throws(OpenIDSignInError) in try await self.redeem(code: code, request: request) }
    }

    /// `work`'s identity, or `provider_unavailable` when it takes longer than ``OpenIDConnectConfiguration/requestTimeout``.
    private func withinRequestTimeout(_ work: @escaping @Sendable () async throws(OpenIDSignInError) -> OpenIDIdentity)
        async throws(OpenIDSignInError) -> OpenIDIdentity {
        let limit = configuration.requestTimeout
        let outcome = await withTaskGroup(of: Result<OpenIDIdentity, OpenIDSignInError>?.self) { group in
            group.addTask {
                do throws(OpenIDSignInError) { return .success(try await work()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .failure(OpenIDSignInError(.providerUnavailable, "no answer within \(limit)"))
            }
            while let next = await group.next() {
                if let next {
                    group.cancelAll()
                    return next
                }
            }
            return .failure(OpenIDSignInError(.providerUnavailable, "the sign-in was cancelled"))
        }
        return try outcome.get()
    }

    private func redeem(code: String, request: OpenIDAuthorizationRequest) async throws(OpenIDSignInError) -> OpenIDIdentity {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
                      ("code_verifier", request.codeVerifier), ("client_id", configuration.clientID)]
        var headers: [(String, String)] = []
        if let secret = configuration.clientSecret {
            if metadata.postsClientSecret {
                fields.append(("client_secret", secret))
            } else {
                // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
                let pair = "\(ProviderHTTP.formEncode(configuration.clientID)):\(ProviderHTTP.formEncode(secret))"
                headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
            }
        }
        let answer: ProviderHTTP.Answer
        do { answer = try await http.postForm(metadata.tokenEndpoint, fields: fields, headers: headers) } catch {
            throw OpenIDSignInError(.providerUnavailable, "token endpoint: \(error.description)")
        }
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        guard answer.status == 200 else {
            if (400..<500).contains(answer.status) {
                let error = (object?["error"] as? String).map { String($0.prefix(40)) } ?? "HTTP \(answer.status)"
                throw OpenIDSignInError(.codeRefused, "the token endpoint refused the code: \(error)")
            }
            throw OpenIDSignInError(.providerUnavailable, "the token endpoint answered HTTP \(answer.status)")
        }
        guard let idToken = object?["id_token"] as? String else {
            throw OpenIDSignInError(.malformedToken, "the token response has no id_token")
        }
        let identity = try await verify(idToken: idToken, nonce: request.nonce)
        return identity
    }

    /// Verifies an id_token issued to this client for `nonce`: signature, then the claims.
    public func verify(idToken: String, nonce: String) async throws(OpenIDSignInError) -> OpenIDIdentity {
        let payload = try await keySet.verify(idToken)
        let claims = try IDTokenClaims(payload: payload, usernameClaim: configuration.usernameClaim)
        try claims.check(issuer: configuration.issuer, clientID: configuration.clientID, nonce: nonce, now: configuration.now(),
                         skew: configuration.allowedClockSkew)
        return OpenIDIdentity(issuer: claims.issuer, subject: claims.subject, username: claims.username, displayName: claims.name)
    }

    /// Verifies a JWT the provider issued to the provider's own app (`appClientID`), within
    /// ``OpenIDConnectConfiguration/requestTimeout`` (a JWKS read for a rotated key included): signature, issuer,
    /// the client it was issued to, and times (``IDTokenClaims/checkAppToken(issuer:appClientID:now:skew:)``).
    public func verifyAppToken(_ token: String, issuedTo appClientID: String) async throws(OpenIDSignInError) -> OpenIDIdentity {
        try await withinRequestTimeout { () throws(OpenIDSignInError) in
            let payload = try await self.keySet.verify(token)
            let claims = try IDTokenClaims(payload: payload, usernameClaim: self.configuration.usernameClaim)
            try claims.checkAppToken(issuer: self.configuration.issuer, appClientID: appClientID, now: self.configuration.now(),
                                     skew: self.configuration.allowedClockSkew)
            return OpenIDIdentity(issuer: claims.issuer, subject: claims.subject, username: claims.username, displayName: claims.name)
        }
    }

    /// How many of the provider's keys the host can verify id_tokens with.
    public var keyCount: Int {
        get async { await keySet.keyCount }
    }

    /// How many times the JWKS has been read, the start included.
    public var keySetReadings: Int {
        get async { await keySet.fetchCount }
    }
}
