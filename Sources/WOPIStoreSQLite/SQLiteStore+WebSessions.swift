import Foundation
import WOPIHost
import GRDB
import WOPICore

/// The embedded `WebSessionStore`: table `web_sessions` (migration `v8-web-sessions`).
extension SQLiteStore: WebSessionStore {
    /// Stores a new session, and forgets every session that ended at or before `now`.
    public func createWebSession(_ session: WebSessionRecord, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM web_sessions WHERE expires_at <= ?", arguments: [now.timeIntervalSince1970])
            try db.execute(sql: """
                INSERT INTO web_sessions (digest, user_id, created_at, last_seen_at, expires_at, user_agent) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [session.digest.hex, session.userID.rawValue, session.createdAt.timeIntervalSince1970,
                                 session.lastSeenAt.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970, session.userAgent])
        }
    }

    /// The session with this digest, unless it ended at or before `now`.
    public func webSession(digest: SecretDigest, now: Date) async throws -> WebSessionRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM web_sessions WHERE digest = ? AND expires_at > ?",
                             arguments: [digest.hex, now.timeIntervalSince1970]).flatMap(Self.webSession)
        }
    }

    /// Records that the session was used at `time`.
    public func touchWebSession(digest: SecretDigest, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE web_sessions SET last_seen_at = ? WHERE digest = ? AND last_seen_at < ?",
                           arguments: [time.timeIntervalSince1970, digest.hex, time.timeIntervalSince1970])
        }
    }

    /// Ends one session; returns whether it existed.
    @discardableResult
    public func endWebSession(digest: SecretDigest) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM web_sessions WHERE digest = ?", arguments: [digest.hex])
            return db.changesCount > 0
        }
    }

    /// The user's sessions that have not ended at `now`, newest first.
    public func webSessions(of userID: ResourceID, now: Date) async throws -> [WebSessionRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM web_sessions WHERE user_id = ? AND expires_at > ? ORDER BY created_at DESC",
                             arguments: [userID.rawValue, now.timeIntervalSince1970]).compactMap(Self.webSession)
        }
    }

    /// Ends every session of the user; returns how many there were (ended or not).
    @discardableResult
    public func endWebSessions(of userID: ResourceID) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM web_sessions WHERE user_id = ?", arguments: [userID.rawValue])
            return db.changesCount
        }
    }

    /// A row as a record; `nil` for a row that does not decode (treated as no session).
    private static func webSession(_ row: Row) -> WebSessionRecord? {
        guard let digest = SecretDigest(hex: row["digest"]), let userID = ResourceID(row["user_id"] as String? ?? "") else { return nil }
        return WebSessionRecord(digest: digest, userID: userID, createdAt: Date(timeIntervalSince1970: row["created_at"]),
                                lastSeenAt: Date(timeIntervalSince1970: row["last_seen_at"]),
                                expiresAt: Date(timeIntervalSince1970: row["expires_at"]), userAgent: row["user_agent"])
    }
}
