import Foundation
import Hummingbird
import WOPICore
import WOPIHost

/// `POST /oauth2/token` (RFC 6749 §3.2, §4.1.3, §6; tokenissuance.rst): redeems a code,
/// rotates a refresh token, or exchanges the provider app's identity token (RFC 8693, `+TokenExchange`), answering JSON `access_token`, `token_type`, `expires_in` (seconds,
/// a number), `refresh_token`, or an RFC 6749 §5.2 error.
extension AuthorizationServer {
    /// The successful answer (RFC 6749 §5.1).
    struct TokenResponse: Encodable {
        var access_token: String
        var token_type = "Bearer"
        var expires_in: Int
        var refresh_token: String
        var scope: String?
    }

    /// Refused grants (`invalid_grant`, `invalid_client`) count against the client and address like
    /// wrong passwords on the sign-in page: past the limit the endpoint answers 429 `slow_down` with
    /// `Retry-After` until the oldest failure ages out; a granted request clears the count.
    func token(_ request: Request, context: some RequestContext) async throws -> Response {
        let fields: FormFields
        do { fields = try await Self.formBody(request) } catch let problem as FormFields.Problem {
            throw OAuthErrorResponse.invalidRequest(Self.describe(problem))
        }
        let clientID = String((Self.claimedClientID(request, fields) ?? "").prefix(64))
        let key = SignInThrottle.key(client: clientID, address: Self.address(of: context))
        if let wait = try await throttle.retryAfter(key, now: now) {
            backend.audit(.grantRefused, details: ["reason": "throttled", "client": clientID])
            throw OAuthErrorResponse.slowDown(retryAfter: wait)
        }
        do {
            let response = try await grant(request, fields)
            try await throttle.reset(key)
            return response
        } catch let refusal as OAuthErrorResponse where refusal.code == "invalid_grant" || refusal.code == "invalid_client" {
            try await throttle.recordFailure(key, now: now)
            backend.audit(.grantRefused, details: ["reason": refusal.code, "client": clientID])
            throw refusal
        }
    }

    /// The client a request names, by `client_id` or the HTTP Basic user name, before it is authenticated.
    private static func claimedClientID(_ request: Request, _ fields: FormFields) -> String? {
        if let id = fields.nonEmpty("client_id") { return id }
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic "),
              let decoded = Base64URL.decodeStandard(authorization.dropFirst(6).trimmingCharacters(in: .whitespaces)),
              let colon = decoded.firstIndex(of: ":") else { return nil }
        return String(decoded[..<colon]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private func grant(_ request: Request, _ fields: FormFields) async throws -> Response {
        let client = try authenticateClient(request, fields)
        let sessionContext = request.headers[.wopiSessionContext]
        switch fields.nonEmpty("grant_type") {
        case "authorization_code"?:
            return try await redeemCode(fields, client: client, sessionContext: sessionContext)
        case "refresh_token"?:
            return try await refresh(fields, client: client, sessionContext: sessionContext)
        case Self.tokenExchangeGrantType?:
            return try await exchange(fields, client: client)
        case nil:
            throw OAuthErrorResponse.invalidRequest("grant_type is missing")
        case let other?:
            throw OAuthErrorResponse.unsupportedGrantType("grant_type '\(other.prefix(40))' is not supported; use authorization_code, refresh_token or \(Self.tokenExchangeGrantType)")
        }
    }

    /// The client, authenticated by HTTP Basic or by `client_id`/`client_secret` in the form
    /// (RFC 6749 §2.3.1), never both; a public client names itself with `client_id` alone.
    private func authenticateClient(_ request: Request, _ fields: FormFields) throws -> OAuthClient {
        var clientID = fields.nonEmpty("client_id")
        var secret = fields["client_secret"]
        var usedBasic = false
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic ") {
            guard secret == nil else { throw OAuthErrorResponse.invalidRequest("send client credentials either with HTTP Basic or in the form, not both") }
            guard let decoded = Base64URL.decodeStandard(authorization.dropFirst(6).trimmingCharacters(in: .whitespaces)),
                  let colon = decoded.firstIndex(of: ":") else {
                throw OAuthErrorResponse.invalidClient("the HTTP Basic credentials are malformed", usedBasic: true)
            }
            // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
            let basicID = String(decoded[..<colon]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            if let formID = clientID, formID != basicID {
                throw OAuthErrorResponse.invalidRequest("client_id in the form differs from the HTTP Basic user name")
            }
            clientID = basicID
            secret = String(decoded[decoded.index(after: colon)...]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            usedBasic = true
        }
        guard let clientID, !clientID.isEmpty else { throw OAuthErrorResponse.invalidClient("no client credentials", usedBasic: usedBasic) }
        guard let client = clients.first(where: { $0.id == clientID }) else {
            throw OAuthErrorResponse.invalidClient("unknown client", usedBasic: usedBasic)
        }
        if let digest = client.secretDigest {
            guard let secret, digest.matches(secret) else {
                throw OAuthErrorResponse.invalidClient("the client secret is missing or wrong", usedBasic: usedBasic)
            }
        } else if let secret, !secret.isEmpty {
            throw OAuthErrorResponse.invalidClient("this client is public and has no secret", usedBasic: usedBasic)
        }
        return client
    }

    private func redeemCode(_ fields: FormFields, client: OAuthClient, sessionContext: String?) async throws -> Response {
        guard let code = fields.nonEmpty("code") else { throw OAuthErrorResponse.invalidRequest("code is missing") }
        let digest = SecretDigest(of: code)
        guard let record = try await store.authorizationCode(digest: digest) else {
            throw OAuthErrorResponse.invalidGrant("the code is unknown")
        }
        guard record.redeemedAt == nil else {
            // RFC 6749 §4.1.2: a second use means the code leaked; revoke what the first use got.
            try await store.revokeGrant(record.grantID, now: now)
            throw OAuthErrorResponse.invalidGrant("the code was already used; the tokens issued for it are revoked")
        }
        guard record.expiresAt > now else { throw OAuthErrorResponse.invalidGrant("the code has expired") }
        guard record.clientID == client.id else { throw OAuthErrorResponse.invalidGrant("the code was issued to another client") }
        let redirect = fields.nonEmpty("redirect_uri")
        if record.redirectURIRequired, redirect == nil {
            throw OAuthErrorResponse.invalidGrant("redirect_uri is required because the authorization request had it")
        }
        if let redirect, RedirectURI.normalized(redirect) != RedirectURI.normalized(record.redirectURI) {
            throw OAuthErrorResponse.invalidGrant("redirect_uri does not match the one the code was issued for")
        }
        try checkSessionContext(record.sessionContextDigest, sent: sessionContext)
        let verifier = fields.nonEmpty("code_verifier")
        switch (record.codeChallenge, verifier) {
        case (let challenge?, let verifier?):
            guard PKCE.verify(verifier, against: challenge) else { throw OAuthErrorResponse.invalidGrant("code_verifier does not match code_challenge") }
        case (_?, nil):
            throw OAuthErrorResponse.invalidGrant("code_verifier is missing")
        case (nil, _?):
            // RFC 9700 §2.1.1: a verifier without a challenge is a downgrade attempt.
            throw OAuthErrorResponse.invalidGrant("code_verifier was sent but the authorization request had no code_challenge")
        case (nil, nil):
            break
        }
        let refreshEnd = try await providerSessionEnd(for: record.userID).map { min($0, now.addingTimeInterval(policy.refreshTokenLifetime)) }
        let (response, tokens) = newTokens(grantID: record.grantID, clientID: client.id, userID: record.userID, scope: record.scope,
                                           sessionContext: record.sessionContextDigest, refreshExpiresAt: refreshEnd)
        guard try await store.redeemAuthorizationCode(digest: digest, issuing: tokens, now: now) else {
            try await store.revokeGrant(record.grantID, now: now)
            throw OAuthErrorResponse.invalidGrant("the code was already used; the tokens issued for it are revoked")
        }
        return try OAuthJSON.response(response)
    }

    private func refresh(_ fields: FormFields, client: OAuthClient, sessionContext: String?) async throws -> Response {
        guard let presented = fields.nonEmpty("refresh_token") else { throw OAuthErrorResponse.invalidRequest("refresh_token is missing") }
        let digest = SecretDigest(of: presented)
        guard let record = try await store.oauthToken(digest: digest), record.kind == .refresh else {
            throw OAuthErrorResponse.invalidGrant("the refresh token is unknown")
        }
        guard record.clientID == client.id else { throw OAuthErrorResponse.invalidGrant("the refresh token was issued to another client") }
        guard record.revokedAt == nil else {
            // A rotated-out refresh token coming back means two parties hold it (RFC 9700 §4.14.2).
            try await store.revokeGrant(record.grantID, now: now)
            throw OAuthErrorResponse.invalidGrant("the refresh token was already used or revoked; its grant is revoked")
        }
        guard record.expiresAt > now else { throw OAuthErrorResponse.invalidGrant("the refresh token has expired") }
        try checkSessionContext(record.sessionContextDigest, sent: sessionContext)
        guard try await backend.store.user(id: record.userID) != nil else { throw OAuthErrorResponse.invalidGrant("the user no longer exists") }
        // A grant of a person the identity provider vouches for never outlives its first refresh token: past that, they
        // sign in there again, and a person it no longer lets in gets nothing more.
        let refreshEnd = try await providerSessionEnd(for: record.userID) == nil ? nil : record.expiresAt
        let (response, tokens) = newTokens(grantID: record.grantID, clientID: client.id, userID: record.userID, scope: record.scope,
                                           sessionContext: record.sessionContextDigest, refreshExpiresAt: refreshEnd)
        guard try await store.rotateRefreshToken(digest: digest, issuing: tokens, now: now) else {
            try await store.revokeGrant(record.grantID, now: now)
            throw OAuthErrorResponse.invalidGrant("the refresh token was already used; its grant is revoked")
        }
        return try OAuthJSON.response(response)
    }

    /// `X-WOPI-SessionContext` must repeat the grant's `sc` when one was issued (sessioncontext.rst).
    private func checkSessionContext(_ expected: SecretDigest?, sent: String?) throws {
        guard let expected else { return }
        guard let sent, expected.matches(sent) else {
            throw OAuthErrorResponse.invalidGrant("X-WOPI-SessionContext is missing or does not match the sign-in")
        }
    }

    /// When a grant made now for `userID` must end: ``OpenIDSignIn/sessionLifetime`` from now when the account is linked
    /// to the configured identity provider, `nil` (the refresh token's own lifetime) otherwise.
    private func providerSessionEnd(for userID: ResourceID) async throws -> Date? {
        guard let openID = backend.configuration.openIDSignIn, let links = backend.store as? any IdentityLinkStore,
              try await links.identityLink(userID: userID, issuer: openID.provider.issuer) != nil else { return nil }
        return now.addingTimeInterval(openID.sessionLifetime)
    }

    private func newTokens(grantID: String, clientID: String, userID: ResourceID, scope: String, sessionContext: SecretDigest?,
                           refreshExpiresAt: Date?) -> (TokenResponse, [OAuthTokenRecord]) {
        let access = Base64URL.randomToken()
        let refresh = Base64URL.randomToken()
        let issuedAt = now
        let records = [
            OAuthTokenRecord(digest: SecretDigest(of: access), kind: .access, grantID: grantID, clientID: clientID, userID: userID, scope: scope,
                             sessionContextDigest: sessionContext, createdAt: issuedAt,
                             expiresAt: issuedAt.addingTimeInterval(policy.accessTokenLifetime)),
            OAuthTokenRecord(digest: SecretDigest(of: refresh), kind: .refresh, grantID: grantID, clientID: clientID, userID: userID, scope: scope,
                             sessionContextDigest: sessionContext, createdAt: issuedAt,
                             expiresAt: refreshExpiresAt ?? issuedAt.addingTimeInterval(policy.refreshTokenLifetime)),
        ]
        let response = TokenResponse(access_token: access, expires_in: Int(policy.accessTokenLifetime), refresh_token: refresh,
                                     scope: scope.isEmpty ? nil : scope)
        return (response, records)
    }
}

extension Base64URL {
    /// Decodes standard base64 (RFC 4648 §4), as HTTP Basic uses, to text.
    static func decodeStandard(_ text: String) -> String? {
        guard let data = Data(base64Encoded: text) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
