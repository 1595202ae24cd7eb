import NIOConcurrencyHelpers
import _CryptoExtras
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TestSupport
import WOPICore

/// An OpenID Connect provider written in the test suite, on 127.0.0.1, with keys the tests hold: discovery,
/// JWKS, an authorization endpoint that approves at once (the person is signed in there), and a token endpoint
/// that checks the code, the exact redirect URI, the PKCE verifier and the client's secret before it answers with
/// an id_token. Each planted fault (``Fault``) makes that id_token wrong in one way, or the provider slow or down.
///
/// It signs with CryptoKit's primitives directly, never through the code under test.
final class StandInIdentityProvider: @unchecked Sendable {
    static let clientID = "wopikit-host"
    static let clientSecret = "stand-in-secret-0123456789"

    /// What the next id_token gets wrong.
    enum Fault: String, Sendable, CaseIterable {
        case none
        case wrongIssuer, wrongAudience, expired, issuedInTheFuture, notYetValid, wrongNonce, missingNonce
        case algorithmNone, hmacWithPublicKey, forgedSignature, anotherClientsToken, severalAudiencesWithoutAzp, unpublishedKey
        /// The id_token names its key's algorithm as another (`PS256` on an `RS256` key).
        case algorithmSwapped
    }

    /// A signing key and how it shows in the JWKS.
    struct SigningKey: Sendable {
        enum Material: @unchecked Sendable {
            case rsa(_RSA.Signing.PrivateKey, pss: Bool)
            case p256(P256.Signing.PrivateKey)
            case ed25519(Curve25519.Signing.PrivateKey)
        }
        var kid: String
        var material: Material

        var algorithm: String {
            switch material {
            case .rsa(_, let pss): pss ? "PS256" : "RS256"
            case .p256: "ES256"
            case .ed25519: "EdDSA"
            }
        }

        static func rsa(_ kid: String, pss: Bool = false) throws -> SigningKey {
            SigningKey(kid: kid, material: .rsa(try RSAKeys.next(), pss: pss))
        }
        static func p256(_ kid: String) -> SigningKey { SigningKey(kid: kid, material: .p256(P256.Signing.PrivateKey())) }
        static func ed25519(_ kid: String) -> SigningKey { SigningKey(kid: kid, material: .ed25519(Curve25519.Signing.PrivateKey())) }

        /// The public JWK.
        func jwk(declaringAlgorithm: Bool = true) throws -> [String: String] {
            var key: [String: String]
            switch material {
            case .rsa(let key_, _):
                let primitives = try key_.publicKey.getKeyPrimitives()
                key = ["kty": "RSA", "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)]
            case .p256(let key_):
                let raw = key_.publicKey.rawRepresentation
                key = ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32))]
            case .ed25519(let key_):
                key = ["kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(key_.publicKey.rawRepresentation)]
            }
            key["kid"] = kid
            key["use"] = "sig"
            if declaringAlgorithm { key["alg"] = algorithm }
            return key
        }

        func sign(_ input: Data) throws -> Data {
            switch material {
            case .rsa(let key, let pss): try key.signature(for: input, padding: pss ? .PSS : .insecurePKCS1v1_5).rawRepresentation
            case .p256(let key): try key.signature(for: input).rawRepresentation
            case .ed25519(let key): try key.signature(for: input)
            }
        }
    }

    private struct Grant {
        var redirectURI: String
        var challenge: String
        var nonce: String?
    }

    private let lock = NSLock()
    private var published: [SigningKey]
    private var signing: SigningKey
    private var grants: [String: Grant] = [:]
    private var _fault = Fault.none
    private var _tokenDelay: Duration = .zero
    private var _jwksRequests = 0
    private var _tokenRequests = 0
    private var _registeredRedirectURI: String?
    private var _documentIssuer: String?
    private var _lastAuthorizationQuery: [String: String] = [:]
    private var _issuedTokens: [String] = []
    /// The person signed in at the provider.
    var subject = "248289761001"
    var claims: [String: String] = ["name": "Jane Doe", "preferred_username": "j.doe"]
    private(set) var base = URL(string: "http://127.0.0.1")!

    /// The provider's clock: the host's, so that a test that runs long in a busy suite never sees a token issued
    /// "in the future" of a host clock that stands still.
    let now: @Sendable () -> Date

    init(key: SigningKey, now: @escaping @Sendable () -> Date = { Date() }) {
        published = [key]
        signing = key
        self.now = now
    }

    var issuer: String { base.absoluteString }

    private func locked<T>(_ body: () throws -> T) rethrows -> T { lock.lock(); defer { lock.unlock() }; return try body() }

    var fault: Fault { get { locked { _fault } } set { locked { _fault = newValue } } }
    var tokenDelay: Duration { get { locked { _tokenDelay } } set { locked { _tokenDelay = newValue } } }
    var jwksRequests: Int { locked { _jwksRequests } }
    var tokenRequests: Int { locked { _tokenRequests } }
    /// The redirect URI registered for the client; `nil` accepts any, as long as the token request repeats it.
    var registeredRedirectURI: String? { get { locked { _registeredRedirectURI } } set { locked { _registeredRedirectURI = newValue } } }
    /// An `issuer` for the discovery document other than the provider's own address.
    var documentIssuer: String? { get { locked { _documentIssuer } } set { locked { _documentIssuer = newValue } } }
    var lastAuthorizationQuery: [String: String] { locked { _lastAuthorizationQuery } }
    /// Every id_token and code handed out, to check none reaches a log or an audit event.
    var issuedSecrets: [String] { locked { _issuedTokens } }

    /// Publishes `key` instead of the current keys and signs with it from now on (a key rotation).
    func rotate(to key: SigningKey) { locked { published = [key]; signing = key } }

    /// Serves the provider for the duration of `body`.
    func serve<T: Sendable>(_ body: @Sendable (StandInIdentityProvider) async throws -> T) async throws -> T {
        try await LoopbackServer.serve(router(), label: "stand-in-idp") { url in
            self.locked { self.base = url }
            return try await body(self)
        }
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get(".well-known/openid-configuration") { _, _ in
            let base = self.issuer
            return Self.json(["issuer": self.documentIssuer ?? base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                              "jwks_uri": base + "/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
                              "id_token_signing_alg_values_supported": ["RS256", "PS256", "ES256", "EdDSA"],
                              "code_challenge_methods_supported": ["S256"]])
        }
        router.get("jwks") { _, _ in
            let keys = try self.locked { self._jwksRequests += 1; return try self.published.map { try $0.jwk() } }
            return Self.json(["keys": keys])
        }
        router.get("authorize") { request, _ in
            var query: [String: String] = [:]
            for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
            self.locked { self._lastAuthorizationQuery = query }
            guard query["response_type"] == "code", query["client_id"] == Self.clientID, query["code_challenge_method"] == "S256",
                  let challenge = query["code_challenge"], let redirect = query["redirect_uri"], let state = query["state"],
                  self.registeredRedirectURI.map({ $0 == redirect }) ?? true else {
                return Response(status: .badRequest)
            }
            let code = Base64URL.randomToken()
            self.locked {
                self.grants[code] = Grant(redirectURI: redirect, challenge: challenge, nonce: query["nonce"])
                self._issuedTokens.append(code)
            }
            var components = URLComponents(string: redirect)!
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
            var headers = HTTPFields()
            headers[.location] = components.string!
            return Response(status: .found, headers: headers)
        }
        router.post("token") { request, _ in
            self.locked { self._tokenRequests += 1 }
            let body = String(buffer: try await request.body.collect(upTo: 65536))
            var form: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                if parts.count == 2 { form[parts[0]] = parts[1] }
            }
            let expectedAuthorization = "Basic " + Data("\(Self.clientID):\(Self.clientSecret)".utf8).base64EncodedString()
            guard request.headers[.authorization] == expectedAuthorization else { return Self.json(["error": "invalid_client"], status: .unauthorized) }
            guard form["grant_type"] == "authorization_code", let code = form["code"], let verifier = form["code_verifier"],
                  let grant = self.locked({ self.grants.removeValue(forKey: code) }), form["redirect_uri"] == grant.redirectURI,
                  Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) == grant.challenge else {
                return Self.json(["error": "invalid_grant"], status: .badRequest)
            }
            let delay = self.tokenDelay
            if delay > .zero { try await Task.sleep(for: delay) }
            let token = try self.idToken(nonce: grant.nonce)
            self.locked { self._issuedTokens.append(token) }
            return Self.json(["access_token": Base64URL.randomToken(), "token_type": "Bearer", "expires_in": 300, "id_token": token])
        }
        return router
    }

    /// The id_token for the signed-in person, wrong in the way ``fault`` says.
    func idToken(nonce: String?, audience: String = StandInIdentityProvider.clientID) throws -> String {
        let (key, fault, issuer) = locked { (signing, _fault, base.absoluteString) }
        let now = Int(self.now().timeIntervalSince1970)
        var payload: [String: Any] = ["iss": issuer, "sub": subject, "aud": audience, "exp": now + 300, "iat": now]
        for (name, value) in claims { payload[name] = value }
        if let nonce { payload["nonce"] = nonce }
        var header: [String: Any] = ["alg": key.algorithm, "kid": key.kid, "typ": "JWT"]
        var signer = key
        switch fault {
        case .none: break
        case .wrongIssuer: payload["iss"] = issuer + "/other"
        case .wrongAudience: payload["aud"] = "some-other-client"
        case .expired: payload["exp"] = now - 120; payload["iat"] = now - 600
        case .issuedInTheFuture: payload["iat"] = now + 600; payload["exp"] = now + 900
        case .notYetValid: payload["nbf"] = now + 600
        case .wrongNonce: payload["nonce"] = Base64URL.randomToken()
        case .missingNonce: payload["nonce"] = nil
        case .anotherClientsToken: payload["aud"] = ["another-app"]; payload["azp"] = "another-app"
        case .severalAudiencesWithoutAzp: payload["aud"] = [Self.clientID, "another-app"]
        case .forgedSignature: signer = try SigningKey(kid: key.kid, material: Self.freshMaterial(like: key))
        case .unpublishedKey: signer = try SigningKey(kid: "unpublished-" + Base64URL.randomToken(byteCount: 6), material: Self.freshMaterial(like: key))
                              header["kid"] = signer.kid
        case .algorithmSwapped: header["alg"] = key.algorithm == "RS256" ? "PS256" : "RS256"
        case .algorithmNone, .hmacWithPublicKey: break
        }
        if fault == .algorithmNone { header = ["alg": "none", "typ": "JWT"] }
        if fault == .hmacWithPublicKey { header = ["alg": "HS256", "kid": key.kid] }
        let encodedHeader = Base64URL.encode(try JSONSerialization.data(withJSONObject: header))
        let input = encodedHeader + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        switch fault {
        case .algorithmNone:
            return input + "."
        case .hmacWithPublicKey:
            // The classic confusion: the public key (as the JWKS publishes it) used as an HMAC secret.
            let secret = SymmetricKey(data: try JSONSerialization.data(withJSONObject: key.jwk(), options: .sortedKeys))
            return input + "." + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: secret)))
        case .algorithmSwapped:
            // Signed as the header says, with the published key: only the algorithm is not the key's.
            guard case .rsa(let rsa, let pss) = key.material else { return input + "." + Base64URL.encode(try key.sign(Data(input.utf8))) }
            let swapped = SigningKey(kid: key.kid, material: .rsa(rsa, pss: !pss))
            return input + "." + Base64URL.encode(try swapped.sign(Data(input.utf8)))
        default:
            return input + "." + Base64URL.encode(try signer.sign(Data(input.utf8)))
        }
    }

    private static func freshMaterial(like key: SigningKey) throws -> SigningKey.Material {
        switch key.material {
        case .rsa(let current, let pss): .rsa(try RSAKeys.next(other: current), pss: pss)
        case .p256: .p256(P256.Signing.PrivateKey())
        case .ed25519: .ed25519(Curve25519.Signing.PrivateKey())
        }
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// RSA keys for the stand-in providers, made a few at a time and then handed out in turn: a 2048-bit key takes
/// seconds to make in a debug build, on a thread of the cooperative pool the whole suite shares.
enum RSAKeys {
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private static let made = NIOLockedValueBox<(keys: [_RSA.Signing.PrivateKey], next: Int)>(([], 0))
    private static let count = 4

    /// The next key in turn, or a new one while there are fewer than ``count``.
    static func next() throws -> _RSA.Signing.PrivateKey {
        if let key = made.withLockedValue({ state -> _RSA.Signing.PrivateKey? in
            guard state.keys.count >= count else { return nil }
            state.next += 1
            return state.keys[state.next % count]
        }) { return key }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        made.withLockedValue { state in if state.keys.count < count { state.keys.append(key) } }
        return key
    }

    /// A key other than `current`, as a forger or a rotation has.
    static func next(other current: _RSA.Signing.PrivateKey) throws -> _RSA.Signing.PrivateKey {
        while true {
            let key = try next()
            if key.derRepresentation != current.derRepresentation { return key }
        }
    }
}
