import Foundation
import WOPIHost
import GRDB
import WOPICore

/// The embedded `AuthorizationStore`: tables `oauth_codes` and `oauth_tokens` (migration `v2-authorization`).
extension SQLiteStore: AuthorizationStore {
    /// Stores a newly issued code.
    public func storeAuthorizationCode(_ code: AuthorizationCodeRecord) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO oauth_codes (digest, client_id, redirect_uri, redirect_uri_required, user_id, scope, code_challenge,
                                         session_context, grant_id, created_at, expires_at, redeemed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [code.digest.hex, code.clientID, code.redirectURI, code.redirectURIRequired, code.userID.rawValue,
                                 code.scope, code.codeChallenge, code.sessionContextDigest?.hex, code.grantID,
                                 code.createdAt.timeIntervalSince1970, code.expiresAt.timeIntervalSince1970,
                                 code.redeemedAt?.timeIntervalSince1970])
        }
    }

    /// The code with this digest, redeemed or not.
    public func authorizationCode(digest: SecretDigest) async throws -> AuthorizationCodeRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM oauth_codes WHERE digest = ?", arguments: [digest.hex]).flatMap(Self.code)
        }
    }

    /// Marks the code redeemed and stores `tokens`, atomically.
    public func redeemAuthorizationCode(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await consume(sql: "UPDATE oauth_codes SET redeemed_at = ? WHERE digest = ? AND redeemed_at IS NULL",
                          arguments: [now.timeIntervalSince1970, digest.hex], issuing: tokens)
    }

    /// The token with this digest, revoked or not.
    public func oauthToken(digest: SecretDigest) async throws -> OAuthTokenRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM oauth_tokens WHERE digest = ?", arguments: [digest.hex]).flatMap(Self.token)
        }
    }

    /// Revokes the refresh token and stores `tokens` (its successors), atomically.
    public func rotateRefreshToken(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await consume(sql: "UPDATE oauth_tokens SET revoked_at = ? WHERE digest = ? AND kind = 'refresh' AND revoked_at IS NULL",
                          arguments: [now.timeIntervalSince1970, digest.hex], issuing: tokens)
    }

    /// Uses up a one-time credential (a code, a refresh token) and stores what it buys, in one write
    /// transaction: `sql` must mark exactly one still-unused row, so of two concurrent uses exactly one wins.
    private func consume(sql: String, arguments: StatementArguments, issuing tokens: [OAuthTokenRecord]) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: sql, arguments: arguments)
            guard db.changesCount == 1 else { return false }
            for token in tokens { try Self.insert(token, db) }
            return true
        }
    }

    /// Revokes every token of a grant (RFC 6749 §4.1.2 and §10.4: reuse of a code or a refresh token).
    public func revokeGrant(_ grantID: String, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
                           arguments: [now.timeIntervalSince1970, grantID])
        }
    }

    /// Deletes codes and tokens that expired before `cutoff`.
    public func removeExpiredAuthorizationRecords(before cutoff: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM oauth_codes WHERE expires_at < ?", arguments: [cutoff.timeIntervalSince1970])
            try db.execute(sql: "DELETE FROM oauth_tokens WHERE expires_at < ?", arguments: [cutoff.timeIntervalSince1970])
        }
    }

    // MARK: Rows

    private static func insert(_ token: OAuthTokenRecord, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO oauth_tokens (digest, kind, grant_id, client_id, user_id, scope, session_context, created_at, expires_at, revoked_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [token.digest.hex, token.kind.rawValue, token.grantID, token.clientID, token.userID.rawValue, token.scope,
                             token.sessionContextDigest?.hex, token.createdAt.timeIntervalSince1970,
                             token.expiresAt.timeIntervalSince1970, token.revokedAt?.timeIntervalSince1970])
    }

    /// A row as a record; `nil` for a row that does not decode (treated as unknown, so refused).
    private static func code(_ row: Row) -> AuthorizationCodeRecord? {
        guard let digest = SecretDigest(hex: row["digest"]), let userID = ResourceID(row["user_id"] as String? ?? "") else { return nil }
        let sessionContext: String? = row["session_context"]
        let redeemed: Double? = row["redeemed_at"]
        return AuthorizationCodeRecord(
            digest: digest, clientID: row["client_id"], redirectURI: row["redirect_uri"], redirectURIRequired: row["redirect_uri_required"],
            userID: userID, scope: row["scope"], codeChallenge: row["code_challenge"],
            sessionContextDigest: sessionContext.flatMap(SecretDigest.init(hex:)), grantID: row["grant_id"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]), expiresAt: Date(timeIntervalSince1970: row["expires_at"]),
            redeemedAt: redeemed.map(Date.init(timeIntervalSince1970:)))
    }

    private static func token(_ row: Row) -> OAuthTokenRecord? {
        guard let digest = SecretDigest(hex: row["digest"]), let kind = OAuthTokenRecord.Kind(rawValue: row["kind"]),
              let userID = ResourceID(row["user_id"] as String? ?? "") else { return nil }
        let sessionContext: String? = row["session_context"]
        let revoked: Double? = row["revoked_at"]
        return OAuthTokenRecord(
            digest: digest, kind: kind, grantID: row["grant_id"], clientID: row["client_id"], userID: userID, scope: row["scope"],
            sessionContextDigest: sessionContext.flatMap(SecretDigest.init(hex:)),
            createdAt: Date(timeIntervalSince1970: row["created_at"]), expiresAt: Date(timeIntervalSince1970: row["expires_at"]),
            revokedAt: revoked.map(Date.init(timeIntervalSince1970:)))
    }
}
