import Foundation
import WOPICore
import WOPIHost

/// `AuthorizationStore` (tables `oauth_codes` and `oauth_tokens`): a code issued by one host is redeemed at
/// another, and a refresh token rotates once whichever host sees it.
extension SQLStore {
    /// Stores a newly issued code.
    public func storeAuthorizationCode(_ code: AuthorizationCodeRecord) async throws {
        try await write("""
            INSERT INTO oauth_codes (\(unescaped: Self.codeColumns))
            VALUES (\(code.digest.hex), \(code.clientID), \(code.redirectURI), \(code.redirectURIRequired), \(code.userID), \(code.scope),
                    \(code.codeChallenge), \(code.sessionContextDigest?.hex), \(code.grantID), \(code.createdAt), \(code.expiresAt), \(code.redeemedAt))
            """)
    }

    /// The code with this digest, redeemed or not.
    public func authorizationCode(digest: SecretDigest) async throws -> AuthorizationCodeRecord? {
        try await first("""
            SELECT \(unescaped: Self.codeColumns) FROM oauth_codes WHERE digest = \(digest.hex)
            """).flatMap { row in
            // A row that does not decode is treated as unknown, so refused.
            guard let digest = SecretDigest(hex: try row.text(0)), let userID = ResourceID(try row.text(4)) else { return nil }
            return AuthorizationCodeRecord(
                digest: digest, clientID: try row.text(1), redirectURI: try row.text(2), redirectURIRequired: try row.bool(3), userID: userID,
                scope: try row.text(5), codeChallenge: try row.optionalText(6), sessionContextDigest: try row.optionalText(7).flatMap(SecretDigest.init(hex:)),
                grantID: try row.text(8), createdAt: try row.date(9), expiresAt: try row.date(10), redeemedAt: try row.optionalDate(11))
        }
    }

    /// Marks the code redeemed and stores `tokens`, atomically.
    public func redeemAuthorizationCode(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await consume("""
            UPDATE oauth_codes SET redeemed_at = \(now) WHERE digest = \(digest.hex) AND redeemed_at IS NULL RETURNING digest
            """, issuing: tokens)
    }

    /// The token with this digest, revoked or not.
    public func oauthToken(digest: SecretDigest) async throws -> OAuthTokenRecord? {
        try await first("""
            SELECT \(unescaped: Self.tokenColumns) FROM oauth_tokens WHERE digest = \(digest.hex)
            """).flatMap { row in
            guard let digest = SecretDigest(hex: try row.text(0)), let kind = OAuthTokenRecord.Kind(rawValue: try row.text(1)),
                  let userID = ResourceID(try row.text(4)) else { return nil }
            return OAuthTokenRecord(
                digest: digest, kind: kind, grantID: try row.text(2), clientID: try row.text(3), userID: userID, scope: try row.text(5),
                sessionContextDigest: try row.optionalText(6).flatMap(SecretDigest.init(hex:)), createdAt: try row.date(7),
                expiresAt: try row.date(8), revokedAt: try row.optionalDate(9))
        }
    }

    /// Revokes the refresh token and stores `tokens` (its successors), atomically.
    public func rotateRefreshToken(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await consume("""
            UPDATE oauth_tokens SET revoked_at = \(now) WHERE digest = \(digest.hex) AND kind = 'refresh' AND revoked_at IS NULL RETURNING digest
            """, issuing: tokens)
    }

    /// Revokes every token of a grant (RFC 6749 §4.1.2 and §10.4: reuse of a code or a refresh token).
    public func revokeGrant(_ grantID: String, now: Date) async throws {
        try await write("UPDATE oauth_tokens SET revoked_at = \(now) WHERE grant_id = \(grantID) AND revoked_at IS NULL")
    }

    /// Deletes codes and tokens that expired before `cutoff`.
    public func removeExpiredAuthorizationRecords(before cutoff: Date) async throws {
        try await transaction { session in
            try await session.execute("DELETE FROM oauth_codes WHERE expires_at < \(cutoff)")
            try await session.execute("DELETE FROM oauth_tokens WHERE expires_at < \(cutoff)")
        }
    }

    private static var codeColumns: String {
        "digest, client_id, redirect_uri, redirect_uri_required, user_id, scope, code_challenge, session_context, grant_id, created_at, expires_at, redeemed_at"
    }

    private static var tokenColumns: String {
        "digest, kind, grant_id, client_id, user_id, scope, session_context, created_at, expires_at, revoked_at"
    }

    /// Uses up a one-time credential and stores what it buys in one transaction: `update` marks at most one
    /// unused row (`RETURNING` it), so of two concurrent uses exactly one wins.
    private func consume(_ update: SQLStatement, issuing tokens: [OAuthTokenRecord]) async throws -> Bool {
        try await transaction { session in
            guard try await session.rows(update).count == 1 else { return false }
            for token in tokens {
                try await session.execute("""
                    INSERT INTO oauth_tokens (\(unescaped: Self.tokenColumns))
                    VALUES (\(token.digest.hex), \(token.kind.rawValue), \(token.grantID), \(token.clientID), \(token.userID), \(token.scope),
                            \(token.sessionContextDigest?.hex), \(token.createdAt), \(token.expiresAt), \(token.revokedAt))
                    """)
            }
            return true
        }
    }
}
