import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answering Office's app-to-app sign-in with the token your identity provider already gave your app, when the host
/// signs people in through that provider: one OAuth 2.0 Token Exchange request (RFC 8693 §2.1) at the host's token
/// endpoint, and no password.
///
/// 1. ``request(for:subjectToken:subjectTokenType:)``: send it (`URLSession`).
/// 2. ``answer(to:exchangeResponse:)``: the ``SignInResponse`` to open, `ms-word-tp:code=…&sc=…&action=…`.
///
/// The host checks the token against the provider's keys and accepts it only when the provider issued it to your
/// app's client there (the host's `--oidc-app-client-id`); what you exchange is a code for Office's client, which
/// Office redeems itself.
public struct IdentityTokenExchange: Sendable, Hashable {
    /// The kind of token your app presents (RFC 8693 §3).
    public enum SubjectTokenType: String, Sendable, Hashable, CaseIterable {
        /// The id_token from your app's sign-in at the provider: what every OpenID Connect provider gives.
        case idToken = "urn:ietf:params:oauth:token-type:id_token"
        /// A JWT access token the provider issued to your app (RFC 9068).
        case accessToken = "urn:ietf:params:oauth:token-type:access_token"
    }

    /// The grant type (RFC 8693 §2.1).
    public static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// The token type the host issues: an authorization code for Office's client.
    public static let issuedTokenType = "urn:wopikit:params:oauth:token-type:authorization_code"

    /// The host's public URL, where `/oauth2/token` lives.
    public let server: URL
    /// Your app's client id on the host, ``HostSignIn/defaultClientID`` by default.
    public let clientID: String

    /// An exchange with the host at `server`.
    ///
    /// - Throws: ``HostSignInError/invalidServerURL(_:)`` unless `server` is an absolute http(s) URL.
    public init(server: URL, clientID: String = HostSignIn.defaultClientID) throws(HostSignInError) {
        guard let scheme = server.scheme?.lowercased(), ["http", "https"].contains(scheme), server.host != nil else {
            throw .invalidServerURL(server.absoluteString)
        }
        self.server = server
        self.clientID = clientID
    }

    /// `POST /oauth2/token` exchanging `subjectToken` for a code for the Office client that sent `request`: its
    /// `client_id` is the `audience`, and its `action` and `scope` go along, as Office expects them back.
    public func request(for request: SignInRequest, subjectToken: String, subjectTokenType: SubjectTokenType = .idToken) -> URLRequest {
        var fields = [
            ("grant_type", Self.grantType), ("client_id", clientID), ("subject_token", subjectToken),
            ("subject_token_type", subjectTokenType.rawValue), ("requested_token_type", Self.issuedTokenType), ("audience", request.clientID),
        ]
        if let action = request.action { fields.append(("action", action)) }
        if let scope = request.scope { fields.append(("scope", scope)) }
        var urlRequest = URLRequest(url: server.appendingPathComponent("oauth2/token"))
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        urlRequest.httpBody = Data(fields.map { "\(HostSignIn.formEncode($0.0))=\(HostSignIn.formEncode($0.1))" }.joined(separator: "&").utf8)
        return urlRequest
    }

    /// The answer to open for Office, from the token endpoint's JSON: the code in `access_token` (RFC 8693 §2.2.1)
    /// and the session context in `sc`, built with ``SignInRequest/response(code:tokenEndpoint:sessionContext:)``.
    ///
    /// - Throws: ``HostSignInError/refused(code:description:)`` for an RFC 6749 §5.2 error body (a token the host
    ///   refused is `invalid_grant`), ``HostSignInError/missingField(_:)`` when the answer is not a code, or
    ///   ``HostSignInError/cannotAnswer(_:)``.
    public func answer(to request: SignInRequest, exchangeResponse data: Data) throws(HostSignInError) -> SignInResponse {
        let object = try HostSignIn.jsonObject(data)
        guard object["issued_token_type"] as? String == Self.issuedTokenType else { throw .missingField("issued_token_type") }
        guard let code = object["access_token"] as? String, !code.isEmpty else { throw .missingField("access_token") }
        do {
            return try request.response(code: code, sessionContext: object["sc"] as? String)
        } catch {
            throw .cannotAnswer(error)
        }
    }
}

extension IdentityTokenExchange: CustomStringConvertible {
    /// The server and client.
    public var description: String { "IdentityTokenExchange(server: \(server.absoluteString), clientID: \(clientID))" }
}
