import Foundation
import WOPICore

/// One signed-in browser of the web front, as the store keeps it: the digest of the cookie's
/// secret (never the secret), whose session it is, and when it began, was last used and ends.
public struct WebSessionRecord: Sendable, Hashable {
    /// The SHA-256 digest of the session secret the browser's cookie carries.
    public var digest: SecretDigest
    /// The signed-in user.
    public var userID: ResourceID
    /// When the user signed in.
    public var createdAt: Date
    /// When a request last used the session (updated at most once a minute).
    public var lastSeenAt: Date
    /// When the session ends, used or not.
    public var expiresAt: Date
    /// The browser's `User-Agent` at sign-in (at most 256 characters), for telling sessions apart.
    public var userAgent: String?

    /// A session record.
    public init(digest: SecretDigest, userID: ResourceID, createdAt: Date, lastSeenAt: Date, expiresAt: Date, userAgent: String?) {
        self.digest = digest
        self.userID = userID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.userAgent = userAgent
    }
}

/// The web front's sessions, kept where every host of a deployment sees them, so a session begun on
/// one host is valid on all, and ending it (signing out, `wopi users sign-out`, a new password)
/// ends it on all at once.
///
/// `SQLiteStore` and `PostgresStore` conform; a store that does not gets sessions kept in the
/// host's memory. A user's removal removes their sessions.
public protocol WebSessionStore: Sendable {
    /// Stores a new session, and forgets every session that ended at or before `now`.
    func createWebSession(_ session: WebSessionRecord, now: Date) async throws

    /// The session with this digest, unless it ended at or before `now`.
    func webSession(digest: SecretDigest, now: Date) async throws -> WebSessionRecord?

    /// Records that the session was used at `time`.
    func touchWebSession(digest: SecretDigest, at time: Date) async throws

    /// Ends one session.
    ///
    /// - Returns: whether it existed.
    @discardableResult
    func endWebSession(digest: SecretDigest) async throws -> Bool

    /// The user's sessions that have not ended at `now`, newest first.
    func webSessions(of userID: ResourceID, now: Date) async throws -> [WebSessionRecord]

    /// Ends every session of the user.
    ///
    /// - Returns: how many there were (ended or not).
    @discardableResult
    func endWebSessions(of userID: ResourceID) async throws -> Int
}

/// Sessions kept in this process only: the fallback for a store that is not a ``WebSessionStore``.
actor InMemoryWebSessions: WebSessionStore {
    private var sessions: [String: WebSessionRecord] = [:]

    func createWebSession(_ session: WebSessionRecord, now: Date) {
        sessions = sessions.filter { $0.value.expiresAt > now }
        sessions[session.digest.hex] = session
    }

    func webSession(digest: SecretDigest, now: Date) -> WebSessionRecord? {
        sessions[digest.hex].flatMap { $0.expiresAt > now ? $0 : nil }
    }

    func touchWebSession(digest: SecretDigest, at time: Date) {
        sessions[digest.hex]?.lastSeenAt = time
    }

    func endWebSession(digest: SecretDigest) -> Bool {
        sessions.removeValue(forKey: digest.hex) != nil
    }

    func webSessions(of userID: ResourceID, now: Date) -> [WebSessionRecord] {
        sessions.values.filter { $0.userID == userID && $0.expiresAt > now }.sorted { $0.createdAt > $1.createdAt }
    }

    func endWebSessions(of userID: ResourceID) -> Int {
        let ended = sessions.filter { $0.value.userID == userID }
        for key in ended.keys { sessions[key] = nil }
        return ended.count
    }
}
