import Foundation
import WOPIHost
import PostgresNIO
import WOPICore

/// Codes and OAuth tokens in PostgreSQL (tables `oauth_codes` and `oauth_tokens`), so a code issued
/// by one host is redeemed at another, and a refresh token rotates once whichever host sees it.
extension PostgresStore: AuthorizationStore {
    /// Stores a newly issued code.
    public func storeAuthorizationCode(_ code: AuthorizationCodeRecord) async throws {
        try await execute("""
            INSERT INTO oauth_codes (digest, client_id, redirect_uri, redirect_uri_required, user_id, scope, code_challenge,
                                     session_context, grant_id, created_at, expires_at, redeemed_at)
            VALUES (\(code.digest.hex), \(code.clientID), \(code.redirectURI), \(code.redirectURIRequired), \(code.userID.rawValue),
                    \(code.scope), \(code.codeChallenge), \(code.sessionContextDigest?.hex), \(code.grantID),
                    \(code.createdAt.timeIntervalSince1970), \(code.expiresAt.timeIntervalSince1970), \(code.redeemedAt?.timeIntervalSince1970))
            """)
    }

    /// The code with this digest, redeemed or not.
    public func authorizationCode(digest: SecretDigest) async throws -> AuthorizationCodeRecord? {
        try await first("SELECT \(unescaped: Self.codeColumns) FROM oauth_codes WHERE digest = \(digest.hex)", Self.code).flatMap { $0 }
    }

    /// Marks the code redeemed and stores `tokens`, atomically.
    public func redeemAuthorizationCode(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await consume("""
            UPDATE oauth_codes SET redeemed_at = \(now.timeIntervalSince1970) WHERE digest = \(digest.hex) AND redeemed_at IS NULL RETURNING digest
            """, issuing: tokens)
    }

    /// The token with this digest, revoked or not.
    public func oauthToken(digest: SecretDigest) async throws -> OAuthTokenRecord? {
        try await first("SELECT \(unescaped: Self.tokenColumns) FROM oauth_tokens WHERE digest = \(digest.hex)", Self.token).flatMap { $0 }
    }

    /// Revokes the refresh token and stores `tokens` (its successors), atomically.
    public func rotateRefreshToken(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await consume("""
            UPDATE oauth_tokens SET revoked_at = \(now.timeIntervalSince1970)
            WHERE digest = \(digest.hex) AND kind = 'refresh' AND revoked_at IS NULL RETURNING digest
            """, issuing: tokens)
    }

    /// Revokes every token of a grant (RFC 6749 §4.1.2 and §10.4: reuse of a code or a refresh token).
    public func revokeGrant(_ grantID: String, now: Date) async throws {
        try await execute("""
            UPDATE oauth_tokens SET revoked_at = \(now.timeIntervalSince1970) WHERE grant_id = \(grantID) AND revoked_at IS NULL
            """)
    }

    /// Deletes codes and tokens that expired before `cutoff`.
    public func removeExpiredAuthorizationRecords(before cutoff: Date) async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM oauth_codes WHERE expires_at < \(cutoff.timeIntervalSince1970)", logger: self.logger)
            try await connection.query("DELETE FROM oauth_tokens WHERE expires_at < \(cutoff.timeIntervalSince1970)", logger: self.logger)
        }
    }

    /// Uses up a one-time credential and stores what it buys in one transaction: `update` marks at most one
    /// unused row (`RETURNING` it), and the row lock it takes makes a concurrent use wait and then find it used.
    private func consume(_ update: PostgresQuery, issuing tokens: [OAuthTokenRecord]) async throws -> Bool {
        try await transaction { connection in
            let marked = try await Self.all(connection, update, logger: self.logger) { try $0.decode(String.self) }
            guard marked.count == 1 else { return false }
            for token in tokens {
                try await connection.query("""
                    INSERT INTO oauth_tokens (digest, kind, grant_id, client_id, user_id, scope, session_context, created_at, expires_at, revoked_at)
                    VALUES (\(token.digest.hex), \(token.kind.rawValue), \(token.grantID), \(token.clientID), \(token.userID.rawValue),
                            \(token.scope), \(token.sessionContextDigest?.hex), \(token.createdAt.timeIntervalSince1970),
                            \(token.expiresAt.timeIntervalSince1970), \(token.revokedAt?.timeIntervalSince1970))
                    """, logger: self.logger)
            }
            return true
        }
    }

    // MARK: Rows

    private static let codeColumns = """
        digest, client_id, redirect_uri, redirect_uri_required, user_id, scope, code_challenge, session_context, grant_id,
        created_at, expires_at, redeemed_at
        """
    private static let tokenColumns = "digest, kind, grant_id, client_id, user_id, scope, session_context, created_at, expires_at, revoked_at"

    /// A row as a record; `nil` for a row that does not decode (treated as unknown, so refused).
    private static func code(_ row: PostgresRow) throws -> AuthorizationCodeRecord? {
        let (digest, clientID, redirectURI, redirectRequired, userID, scope, challenge, sessionContext, grantID, created, expires, redeemed) =
            try row.decode((String, String, String, Bool, String, String, String?, String?, String, Double, Double, Double?).self)
        guard let digest = SecretDigest(hex: digest), let userID = ResourceID(userID) else { return nil }
        return AuthorizationCodeRecord(
            digest: digest, clientID: clientID, redirectURI: redirectURI, redirectURIRequired: redirectRequired, userID: userID, scope: scope,
            codeChallenge: challenge, sessionContextDigest: sessionContext.flatMap(SecretDigest.init(hex:)), grantID: grantID,
            createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires),
            redeemedAt: redeemed.map(Date.init(timeIntervalSince1970:)))
    }

    private static func token(_ row: PostgresRow) throws -> OAuthTokenRecord? {
        let (digest, kind, grantID, clientID, userID, scope, sessionContext, created, expires, revoked) =
            try row.decode((String, String, String, String, String, String, String?, Double, Double, Double?).self)
        guard let digest = SecretDigest(hex: digest), let kind = OAuthTokenRecord.Kind(rawValue: kind), let userID = ResourceID(userID) else { return nil }
        return OAuthTokenRecord(
            digest: digest, kind: kind, grantID: grantID, clientID: clientID, userID: userID, scope: scope,
            sessionContextDigest: sessionContext.flatMap(SecretDigest.init(hex:)),
            createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires),
            revokedAt: revoked.map(Date.init(timeIntervalSince1970:)))
    }
}
