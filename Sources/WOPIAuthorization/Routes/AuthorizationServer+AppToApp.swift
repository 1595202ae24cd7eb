import Foundation
import Hummingbird
import WOPICore
import WOPIHost

/// `POST /oauth2/app-to-app` (apptoapp.rst, PROTOCOL.md §2): the provider's own app, signed in
/// as the user (bearer token of ``FirstPartyApp``), asks for an authorization code for Office.
///
/// Form fields: `client_id` (Office's, required), `action` (echoed), `scope`, and optionally
/// `redirect_uri` (must be Office's registered one) and `response_type` (must be `code`).
/// Answer: JSON `code`, `sc` (when issued), `expires_in`, `redirect_uri`, `action`; the app
/// builds `ms-*-tp:code=…&sc=…&action=…` with `SignInRequest.response(code:tokenEndpoint:sessionContext:)`.
extension AuthorizationServer {
    struct AppToAppResponse: Encodable {
        var code: String
        var sc: String?
        var expires_in: Int
        var redirect_uri: String
        var action: String?
    }

    func appToApp(_ request: Request, context: some RequestContext) async throws -> Response {
        let caller: (token: OAuthTokenRecord, user: UserRecord)
        switch try await authenticate(request) {
        case .success(let value): caller = value
        case .failure(let refusal): throw OAuthErrorResponse.invalidToken(refusal.reason)
        }
        guard clients.first(where: { $0.id == caller.token.clientID })?.isFirstParty == true else {
            var refusal = OAuthErrorResponse.unauthorizedClient("only the provider's own app may ask for codes on a user's behalf")
            refusal.status = .forbidden
            throw refusal
        }
        let fields: FormFields
        do { fields = try await Self.formBody(request) } catch let problem as FormFields.Problem {
            throw OAuthErrorResponse.invalidRequest(Self.describe(problem))
        }
        guard let clientID = fields.nonEmpty("client_id") else { throw OAuthErrorResponse.invalidRequest("client_id is missing") }
        let (target, redirect) = try officeTarget(clientID: clientID, fields: fields,
                                                  unknown: .invalidRequest("client_id names no registered client"))
        // Office's app-to-app request has no redirect_uri, so the token request need not repeat one.
        let (code, sessionContext) = try await issueCode(client: target, redirectURI: redirect, redirectURIRequired: false,
                                                         userID: caller.user.id, scope: fields["scope"] ?? "", codeChallenge: nil)
        return try OAuthJSON.response(AppToAppResponse(code: code, sc: sessionContext, expires_in: Int(policy.codeLifetime),
                                                       redirect_uri: redirect, action: fields["action"]))
    }
}
