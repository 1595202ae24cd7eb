import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Your app's own sign-in to its WOPI host, which answering Office's app-to-app sign-in needs
/// (apptoapp.rst): the OAuth 2.0 authorization-code flow for a public client with PKCE S256
/// (RFC 6749 §4.1, RFC 7636, RFC 8252), then `POST /oauth2/app-to-app` for a code bound to
/// Office's client.
///
/// It builds every request and reads every answer; your app only shows the sign-in page
/// (`ASWebAuthenticationSession` on iOS) and sends the requests (`URLSession`):
///
/// 1. ``authorizationURL(culture:)``: show it; the host redirects to ``redirectURI`` with a code.
/// 2. ``authorizationCode(fromCallback:)``: checks `state` and returns that code.
/// 3. ``tokenRequest(code:)`` and ``accessToken(fromTokenResponse:)``: the app's access token.
/// 4. ``appToAppRequest(for:accessToken:)`` and ``answer(to:appToAppResponse:)``: the
///    ``SignInResponse`` to open, `ms-word-tp:code=…&sc=…&action=…`.
///
/// SHA-256 comes from the caller (CryptoKit's `SHA256` on iOS, swift-crypto elsewhere), so this
/// type stays Foundation-only.
public struct HostSignIn: Sendable, Hashable {
    /// The client ID the host registers for the provider's own app.
    public static let defaultClientID = "wopikit-app"

    /// The host's public URL, where `/oauth2/authorize` lives.
    public let server: URL
    /// The app's OAuth client ID, ``defaultClientID`` by default.
    public let clientID: String
    /// `<scheme>:/oauth2/callback`, the private-use redirect URI (RFC 8252 §7.1).
    public let redirectURI: String
    /// The scheme of ``redirectURI``; `ASWebAuthenticationSession` waits for it.
    public let callbackScheme: String
    /// The scope asked for, `wopi` by default.
    public let scope: String
    /// The PKCE code verifier (RFC 7636 §4.1), sent only with the token request.
    public let codeVerifier: String
    /// `BASE64URL(SHA256(codeVerifier))`, sent with the authorization request (RFC 7636 §4.2).
    public let codeChallenge: String
    /// The `state` the callback must carry back (RFC 6749 §10.12).
    public let state: String

    /// Starts a sign-in.
    ///
    /// - Parameters:
    ///   - server: The host's public URL, for example `http://127.0.0.1:8080`.
    ///   - callbackScheme: Your app's URL scheme (registered under `CFBundleURLTypes`).
    ///   - clientID: The app's client ID on the host.
    ///   - scope: The scope to ask for.
    ///   - codeVerifier: A verifier of 43 to 128 unreserved characters; a random one when `nil`.
    ///   - state: The `state` value; a random one when `nil`.
    ///   - sha256: SHA-256 of its argument, for example `{ Data(SHA256.hash(data: $0)) }`.
    /// - Throws: ``HostSignInError/invalidScheme(_:)``, ``HostSignInError/invalidServerURL(_:)`` or
    ///   ``HostSignInError/invalidCodeVerifier``.
    public init(
        server: URL,
        callbackScheme: String,
        clientID: String = HostSignIn.defaultClientID,
        scope: String = "wopi",
        codeVerifier: String? = nil,
        state: String? = nil,
        sha256: (Data) -> Data
    ) throws(HostSignInError) {
        guard ArgumentEncoding.isValidScheme(callbackScheme) else { throw .invalidScheme(callbackScheme) }
        guard let scheme = server.scheme?.lowercased(), ["http", "https"].contains(scheme), server.host != nil else {
            throw .invalidServerURL(server.absoluteString)
        }
        let verifier = codeVerifier ?? Self.randomToken(byteCount: 32)
        guard (43...128).contains(verifier.count), verifier.unicodeScalars.allSatisfy(Self.isUnreserved) else {
            throw .invalidCodeVerifier
        }
        self.server = server
        self.clientID = clientID
        self.callbackScheme = callbackScheme
        self.redirectURI = "\(callbackScheme):/oauth2/callback"
        self.scope = scope
        self.codeVerifier = verifier
        self.codeChallenge = Self.base64URL(sha256(Data(verifier.utf8)))
        self.state = state ?? Self.randomToken(byteCount: 16)
    }

    /// The page to show the user: `/oauth2/authorize` with the PKCE challenge (RFC 7636 §4.3).
    ///
    /// - Parameter culture: `rs`, the language of the sign-in page, for example `en-US`.
    public func authorizationURL(culture: String? = nil) -> URL {
        var components = URLComponents(url: endpoint("oauth2/authorize"), resolvingAgainstBaseURL: false) ?? URLComponents()
        var items = [
            URLQueryItem(name: "client_id", value: clientID), URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "scope", value: scope),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "code_challenge", value: codeChallenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        if let culture { items.append(URLQueryItem(name: "rs", value: culture)) }
        components.queryItems = items
        // Every part above is a valid URL component, so Foundation always builds the URL.
        return components.url ?? server
    }

    /// The authorization code in the redirect to ``redirectURI``, after checking `state`.
    ///
    /// - Throws: ``HostSignInError/refused(code:description:)`` when the host answered with an
    ///   RFC 6749 §4.1.2.1 error, ``HostSignInError/stateMismatch`` or
    ///   ``HostSignInError/missingField(_:)``.
    public func authorizationCode(fromCallback url: URL) throws(HostSignInError) -> String {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = value("error") { throw .refused(code: error, description: value("error_description")) }
        guard value("state") == state else { throw .stateMismatch }
        guard let code = value("code"), !code.isEmpty else { throw .missingField("code") }
        return code
    }

    /// `POST /oauth2/token` trading the app's code and the verifier for the app's access token (RFC 7636 §4.5).
    public func tokenRequest(code: String) -> URLRequest {
        formRequest("oauth2/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("client_id", clientID), ("code_verifier", codeVerifier),
        ])
    }

    /// The `access_token` in the token endpoint's answer (RFC 6749 §5.1).
    ///
    /// - Throws: ``HostSignInError/refused(code:description:)`` for an RFC 6749 §5.2 error body,
    ///   ``HostSignInError/missingField(_:)`` otherwise.
    public func accessToken(fromTokenResponse data: Data) throws(HostSignInError) -> String {
        let object = try Self.jsonObject(data)
        guard let token = object["access_token"] as? String, !token.isEmpty else { throw .missingField("access_token") }
        return token
    }

    /// `POST /oauth2/app-to-app` asking, as the signed-in app, for a code for the Office client
    /// that sent `request`.
    public func appToAppRequest(for request: SignInRequest, accessToken: String) -> URLRequest {
        var fields = [("client_id", request.clientID)]
        if let action = request.action { fields.append(("action", action)) }
        if let scope = request.scope { fields.append(("scope", scope)) }
        var urlRequest = formRequest("oauth2/app-to-app", fields)
        urlRequest.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        return urlRequest
    }

    /// The answer to open for Office, from `/oauth2/app-to-app`'s JSON (`code`, `sc`): built with
    /// ``SignInRequest/response(code:tokenEndpoint:sessionContext:)``, so scheme and `action` match.
    ///
    /// - Throws: ``HostSignInError/refused(code:description:)`` for an error body,
    ///   ``HostSignInError/missingField(_:)`` or ``HostSignInError/cannotAnswer(_:)``.
    public func answer(to request: SignInRequest, appToAppResponse data: Data) throws(HostSignInError) -> SignInResponse {
        let object = try Self.jsonObject(data)
        guard let code = object["code"] as? String, !code.isEmpty else { throw .missingField("code") }
        do {
            return try request.response(code: code, sessionContext: object["sc"] as? String)
        } catch {
            throw .cannotAnswer(error)
        }
    }

    // MARK: Helpers

    private func endpoint(_ path: String) -> URL { server.appendingPathComponent(path) }

    private func formRequest(_ path: String, _ fields: [(String, String)]) -> URLRequest {
        var request = URLRequest(url: endpoint(path))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&").utf8)
        return request
    }

    /// `application/x-www-form-urlencoded` (WHATWG URL §5.2): unreserved characters stay, the rest is percent-encoded.
    static func formEncode(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// A JSON object from the body, or the RFC 6749 error it carries.
    static func jsonObject(_ data: Data) throws(HostSignInError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { throw .notJSON }
        if let error = object["error"] as? String { throw .refused(code: error, description: object["error_description"] as? String) }
        return object
    }

    static func isUnreserved(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar)
    }

    static func randomToken(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    /// Base64url without padding (RFC 4648 §5; RFC 7636 Appendix A).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

extension HostSignIn: CustomStringConvertible, CustomDebugStringConvertible {
    /// The server, client and redirect URI; never the code verifier or `state`, so logging a sign-in leaks neither.
    public var description: String {
        "HostSignIn(server: \(server.absoluteString), clientID: \(clientID), redirectURI: \(redirectURI))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
