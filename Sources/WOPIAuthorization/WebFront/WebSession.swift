import Crypto
import Foundation
import Hummingbird
import WOPICore
import WOPIHost

/// A signed-in browser of the web front.
///
/// The `wopi_session` cookie carries a random secret (256 bits, base64url) and nothing else; the
/// store keeps only its SHA-256 digest (``WebSessionRecord`` in a ``WebSessionStore``), so every
/// host of a deployment sees the same sessions, a leaked database holds no usable cookie, and
/// ending a session (signing out, `wopi users sign-out`, a new password) ends it on every host at
/// once. The cookie is `HttpOnly` and `SameSite=Lax`.
///
/// Every form repeats ``csrf``, an HMAC of the secret: a page of another site can neither read the
/// cookie nor compute the token, and the token dies with its session.
struct WebSession: Sendable, Hashable {
    /// The signed-in user.
    var userID: ResourceID
    /// When the session ends, whatever the browser does with the cookie.
    var expiresAt: Date
    /// The token every form of this session carries (base64url, 256 bits).
    var csrf: String
    /// The digest of the cookie's secret: the session's key in the store.
    var digest: SecretDigest

    /// The cookie carrying the session secret.
    static let cookieName = "wopi_session"
    /// How long a session lasts after signing in, used or not.
    static let lifetime: TimeInterval = 8 * 3600
    /// How stale a session's "last seen" time may get before a request updates it: at most one
    /// write a minute per session, however many pages it loads.
    static let lastSeenResolution: TimeInterval = 60

    /// The session of a stored record, whose cookie carries `secret`.
    init(_ record: WebSessionRecord, secret: String) {
        self.userID = record.userID
        self.expiresAt = record.expiresAt
        self.csrf = Self.csrf(secret: secret)
        self.digest = record.digest
    }

    /// Whether a cookie value has the shape of a session secret (43 base64url characters).
    static func isWellFormed(secret: String) -> Bool {
        secret.utf8.count == 43 && Base64URL.decode(secret) != nil
    }

    /// The CSRF token of the session whose cookie carries `secret`: HMAC-SHA256 keyed by the secret.
    static func csrf(secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("wopi web-front csrf".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Base64URL.encode(Data(mac))
    }

    /// Whether a form's `csrf` field belongs to this session (constant time).
    func accepts(csrf sent: String?) -> Bool {
        guard let sent, !sent.isEmpty else { return false }
        return ConstantTime.equal(csrf, sent)
    }
}

extension WOPIBackend {
    /// The name of the HMAC key in ``WOPIStore/hostSecret(named:orCreate:)`` that signs the web front's
    /// pre-sign-in CSRF tokens (``SignInFormToken``).
    static var webFrontKeyName: String { "web-session-key" }

    /// Begins a session for `user`: stores its digest and returns it with the cookie's secret.
    func startWebSession(for user: UserRecord, userAgent: String?) async throws -> (session: WebSession, secret: String) {
        let now = configuration.now()
        let secret = Base64URL.randomToken()
        let record = WebSessionRecord(digest: SecretDigest(of: secret), userID: user.id, createdAt: now, lastSeenAt: now,
                                      expiresAt: now.addingTimeInterval(WebSession.lifetime),
                                      userAgent: userAgent.map { String($0.prefix(256)) })
        try await webSessions.createWebSession(record, now: now)
        return (WebSession(record, secret: secret), secret)
    }

    /// The session and user of a request whose session cookie names a live session (the web front and
    /// share pages); `nil` for no cookie, or a forged, ended or expired one.
    func webSession(_ request: Request) async throws -> (WebSession, UserRecord)? {
        guard let secret = request.cookies[WebSession.cookieName]?.value, WebSession.isWellFormed(secret: secret) else { return nil }
        let now = configuration.now()
        let digest = SecretDigest(of: secret)
        // The store finds the row by digest; the digest is then compared again in constant time.
        guard let record = try await webSessions.webSession(digest: digest, now: now), record.digest.matches(digest),
              let user = try await store.user(id: record.userID) else { return nil }
        if now.timeIntervalSince(record.lastSeenAt) >= WebSession.lastSeenResolution {
            try await webSessions.touchWebSession(digest: digest, at: now)
        }
        return (WebSession(record, secret: secret), user)
    }

    /// The HMAC key of the pre-sign-in CSRF tokens, created on first use and shared through the store.
    func webFrontKey() async throws -> SymmetricKey {
        SymmetricKey(data: try await store.hostSecret(named: Self.webFrontKeyName) {
            Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        })
    }
}
