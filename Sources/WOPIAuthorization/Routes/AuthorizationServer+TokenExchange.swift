import Foundation
import Hummingbird
import WOPICore
import WOPIHost

/// OAuth 2.0 Token Exchange (RFC 8693) at `POST /oauth2/token`: the provider's own app answers Office's
/// app-to-app sign-in with a token its identity provider issued to it, instead of a session with this host.
///
/// Request (RFC 8693 §2.1), from the app's client (``FirstPartyApp``):
/// - `grant_type=urn:ietf:params:oauth:grant-type:token-exchange`
/// - `subject_token`: the app's id_token from the provider, or its JWT access token (RFC 9068);
///   `subject_token_type`: `urn:ietf:params:oauth:token-type:id_token`, `…:jwt` or `…:access_token`
/// - `audience`: Office's `client_id`, from the request Office opened the app with
/// - optional `requested_token_type` (only ``authorizationCodeTokenType``), `scope`, `action`, `redirect_uri`
///
/// Answer (RFC 8693 §2.2.1): the code for Office in `access_token` (and in `code`, as `/oauth2/app-to-app`
/// answers), `issued_token_type` ``authorizationCodeTokenType``, `token_type` `N_A`, `expires_in`, and `sc`,
/// `redirect_uri`, `action` as `/oauth2/app-to-app` gives them.
///
/// The token is checked at the provider's keys (``OpenIDProvider/verifyAppToken(_:issuedTo:)``) and must have
/// been issued to ``OpenIDSignIn/appClientID``; a refusal is `invalid_grant`, audited as `signin.refused` with
/// its reason, and creates nothing. The person's account is found, or made, as on a browser sign-in.
extension AuthorizationServer {
    /// The grant type (RFC 8693 §2.1).
    public static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// The token type of what the exchange issues: an authorization code for Office's client, which Office
    /// redeems at this token endpoint as usual.
    public static let authorizationCodeTokenType = "urn:wopikit:params:oauth:token-type:authorization_code"
    /// The subject token types accepted: each must be a JWT the provider signed (RFC 8693 §3).
    static let subjectTokenTypes: Set<String> = [
        "urn:ietf:params:oauth:token-type:id_token", "urn:ietf:params:oauth:token-type:jwt", "urn:ietf:params:oauth:token-type:access_token",
    ]

    /// The successful answer (RFC 8693 §2.2.1, with `/oauth2/app-to-app`'s fields).
    struct TokenExchangeResponse: Encodable {
        var access_token: String
        var issued_token_type = AuthorizationServer.authorizationCodeTokenType
        var token_type = "N_A"
        var expires_in: Int
        var code: String
        var sc: String?
        var redirect_uri: String
        var action: String?
    }

    func exchange(_ fields: FormFields, client: OAuthClient) async throws -> Response {
        guard client.isFirstParty else {
            throw OAuthErrorResponse.unauthorizedClient("only the provider's own app may exchange its identity provider's tokens")
        }
        guard let openID = backend.configuration.openIDSignIn, let appClientID = openID.appClientID,
              let links = backend.store as? any WOPIStore & IdentityLinkStore else {
            throw OAuthErrorResponse.unsupportedGrantType("this host accepts no token exchange: it has no identity provider app client (--oidc-app-client-id)")
        }
        guard let subjectToken = fields.nonEmpty("subject_token") else { throw OAuthErrorResponse.invalidRequest("subject_token is missing") }
        guard subjectToken.utf8.count <= 16 * 1024 else { throw OAuthErrorResponse.invalidRequest("subject_token is longer than 16 KiB") }
        guard let tokenType = fields.nonEmpty("subject_token_type") else { throw OAuthErrorResponse.invalidRequest("subject_token_type is missing") }
        guard Self.subjectTokenTypes.contains(tokenType) else {
            throw OAuthErrorResponse.invalidRequest("subject_token_type must be an id_token, jwt or access_token type of RFC 8693 §3")
        }
        if fields["actor_token"] != nil { throw OAuthErrorResponse.invalidRequest("actor_token is not supported") }
        if let requested = fields.nonEmpty("requested_token_type"), requested != Self.authorizationCodeTokenType {
            throw OAuthErrorResponse.invalidRequest("requested_token_type must be \(Self.authorizationCodeTokenType)")
        }
        guard let audience = fields.nonEmpty("audience") else {
            throw OAuthErrorResponse.invalidRequest("audience is missing: name Office's client_id from its sign-in request")
        }
        let (target, redirect) = try officeTarget(clientID: audience, fields: fields, unknown: .invalidTarget("audience names no Office client"))
        let identity: OpenIDIdentity
        do {
            identity = try await openID.provider.verifyAppToken(subjectToken, issuedTo: appClientID)
        } catch {
            backend.audit(.signInRefused, details: ["reason": error.reason.rawValue, "via": "token-exchange"])
            backend.configuration.monitor.metrics?.recordSignIn(outcome: "refused")
            if error.reason == .providerUnavailable {
                throw OAuthErrorResponse.temporarilyUnavailable("the identity provider cannot be reached to check the token")
            }
            throw OAuthErrorResponse.invalidGrant("the subject token was refused: \(error.reason.rawValue)")
        }
        let user = try await OpenIDAccounts(store: links, backend: backend).account(for: identity)
        let (code, sessionContext) = try await issueCode(client: target, redirectURI: redirect, redirectURIRequired: false, userID: user.id,
                                                         scope: fields["scope"] ?? "", codeChallenge: nil)
        backend.audit(.signInOK, user: user.name, details: ["via": "token-exchange", "method": "oidc"])
        return try OAuthJSON.response(TokenExchangeResponse(access_token: code, expires_in: Int(policy.codeLifetime), code: code, sc: sessionContext,
                                                           redirect_uri: redirect, action: fields["action"]))
    }

    /// Office's client named by `clientID`, and the redirect URI its code is bound to: the registered one `redirect_uri`
    /// names, else its only one. Shared by `/oauth2/app-to-app` and the token exchange.
    func officeTarget(clientID: String, fields: FormFields, unknown: OAuthErrorResponse) throws -> (OAuthClient, String) {
        guard let target = clients.first(where: { $0.id == clientID }) else { throw unknown }
        guard !target.isFirstParty else { throw OAuthErrorResponse.unauthorizedClient("codes for the provider's own app come from /oauth2/authorize") }
        if let responseType = fields.nonEmpty("response_type"), responseType != "code" {
            throw OAuthErrorResponse(status: .badRequest, code: "unsupported_response_type", errorDescription: "only response_type=code is supported")
        }
        if let given = fields.nonEmpty("redirect_uri") {
            guard let registered = target.registeredRedirect(matching: given) else {
                throw OAuthErrorResponse.invalidRequest("redirect_uri is not registered for this client")
            }
            return (target, registered)
        }
        guard let only = target.redirectURIs.first else { throw OAuthErrorResponse.invalidRequest("the client has no redirect URI") }
        return (target, only)
    }
}
