import Foundation
import WOPIHost
import PostgresNIO
import WOPICore

/// The web front's sessions in PostgreSQL (table `web_sessions`): a session begun on one host is
/// valid on every host of the database, and ending it anywhere ends it everywhere.
extension PostgresStore: WebSessionStore {
    /// Stores a new session, and forgets every session that ended at or before `now`.
    public func createWebSession(_ session: WebSessionRecord, now: Date) async throws {
        // One statement: the clean-up and the insert commit together.
        try await execute("""
            WITH ended AS (DELETE FROM web_sessions WHERE expires_at <= \(now.timeIntervalSince1970))
            INSERT INTO web_sessions (digest, user_id, created_at, last_seen_at, expires_at, user_agent)
            VALUES (\(session.digest.hex), \(session.userID.rawValue), \(session.createdAt.timeIntervalSince1970),
                    \(session.lastSeenAt.timeIntervalSince1970), \(session.expiresAt.timeIntervalSince1970), \(session.userAgent))
            """)
    }

    /// The session with this digest, unless it ended at or before `now`.
    public func webSession(digest: SecretDigest, now: Date) async throws -> WebSessionRecord? {
        try await first("""
            SELECT \(unescaped: Self.webSessionColumns) FROM web_sessions WHERE digest = \(digest.hex) AND expires_at > \(now.timeIntervalSince1970)
            """, Self.webSession).flatMap { $0 }
    }

    /// Records that the session was used at `time`.
    public func touchWebSession(digest: SecretDigest, at time: Date) async throws {
        try await execute("""
            UPDATE web_sessions SET last_seen_at = \(time.timeIntervalSince1970)
            WHERE digest = \(digest.hex) AND last_seen_at < \(time.timeIntervalSince1970)
            """)
    }

    /// Ends one session; returns whether it existed.
    @discardableResult
    public func endWebSession(digest: SecretDigest) async throws -> Bool {
        try await !all("DELETE FROM web_sessions WHERE digest = \(digest.hex) RETURNING digest") { try $0.decode(String.self) }.isEmpty
    }

    /// The user's sessions that have not ended at `now`, newest first.
    public func webSessions(of userID: ResourceID, now: Date) async throws -> [WebSessionRecord] {
        try await all("""
            SELECT \(unescaped: Self.webSessionColumns) FROM web_sessions
            WHERE user_id = \(userID.rawValue) AND expires_at > \(now.timeIntervalSince1970) ORDER BY created_at DESC
            """, Self.webSession).compactMap { $0 }
    }

    /// Ends every session of the user; returns how many there were (ended or not).
    @discardableResult
    public func endWebSessions(of userID: ResourceID) async throws -> Int {
        Int(try await first("""
            WITH ended AS (DELETE FROM web_sessions WHERE user_id = \(userID.rawValue) RETURNING 1) SELECT count(*) FROM ended
            """) { try $0.decode(Int64.self) } ?? 0)
    }

    private static let webSessionColumns = "digest, user_id, created_at, last_seen_at, expires_at, user_agent"

    /// A row as a record; `nil` for a row that does not decode (treated as no session).
    private static func webSession(_ row: PostgresRow) throws -> WebSessionRecord? {
        let (digest, userID, created, lastSeen, expires, userAgent) = try row.decode((String, String, Double, Double, Double, String?).self)
        guard let digest = SecretDigest(hex: digest), let userID = ResourceID(userID) else { return nil }
        return WebSessionRecord(digest: digest, userID: userID, createdAt: Date(timeIntervalSince1970: created),
                                lastSeenAt: Date(timeIntervalSince1970: lastSeen), expiresAt: Date(timeIntervalSince1970: expires),
                                userAgent: userAgent)
    }
}
