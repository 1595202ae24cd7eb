import Foundation
import WOPICore
import WOPIHost

/// `WebSessionStore` (table `web_sessions`): a session begun on one host is valid on every host of the
/// database, and ending it anywhere ends it everywhere.
extension SQLStore {
    /// Stores a new session, and forgets every session that ended at or before `now`.
    public func createWebSession(_ session: WebSessionRecord, now: Date) async throws {
        try await transaction { transaction in
            try await transaction.execute("DELETE FROM web_sessions WHERE expires_at <= \(now)")
            try await transaction.execute("""
                INSERT INTO web_sessions (\(unescaped: Self.webSessionColumns))
                VALUES (\(session.digest.hex), \(session.userID), \(session.createdAt), \(session.lastSeenAt), \(session.expiresAt), \(session.userAgent))
                """)
        }
    }

    /// The session with this digest, unless it ended at or before `now`.
    public func webSession(digest: SecretDigest, now: Date) async throws -> WebSessionRecord? {
        try await rows("""
            SELECT \(unescaped: Self.webSessionColumns) FROM web_sessions WHERE digest = \(digest.hex) AND expires_at > \(now)
            """).lazy.compactMap(Self.webSession).first
    }

    /// Records that the session was used at `time`.
    public func touchWebSession(digest: SecretDigest, at time: Date) async throws {
        try await write("UPDATE web_sessions SET last_seen_at = \(time) WHERE digest = \(digest.hex) AND last_seen_at < \(time)")
    }

    /// Ends one session; returns whether it existed.
    @discardableResult
    public func endWebSession(digest: SecretDigest) async throws -> Bool {
        try await !write("DELETE FROM web_sessions WHERE digest = \(digest.hex) RETURNING digest").isEmpty
    }

    /// The user's sessions that have not ended at `now`, newest first.
    public func webSessions(of userID: ResourceID, now: Date) async throws -> [WebSessionRecord] {
        try await rows("""
            SELECT \(unescaped: Self.webSessionColumns) FROM web_sessions WHERE user_id = \(userID) AND expires_at > \(now) ORDER BY created_at DESC
            """).compactMap(Self.webSession)
    }

    /// Ends every session of the user; returns how many there were (ended or not).
    @discardableResult
    public func endWebSessions(of userID: ResourceID) async throws -> Int {
        try await write("DELETE FROM web_sessions WHERE user_id = \(userID) RETURNING digest").count
    }

    private static var webSessionColumns: String { "digest, user_id, created_at, last_seen_at, expires_at, user_agent" }

    /// A row as a record; `nil` for a row that does not decode (treated as no session).
    private static func webSession(_ row: SQLRow) -> WebSessionRecord? {
        guard let digest = try? SecretDigest(hex: row.text(0)), let userID = try? ResourceID(row.text(1)),
              let created = try? row.date(2), let lastSeen = try? row.date(3), let expires = try? row.date(4) else { return nil }
        return WebSessionRecord(digest: digest, userID: userID, createdAt: created, lastSeenAt: lastSeen, expiresAt: expires,
                                userAgent: try? row.optionalText(5))
    }
}
