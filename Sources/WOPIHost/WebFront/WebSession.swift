import Crypto
import Foundation
import Hummingbird
import WOPICore

/// A signed-in browser: the web front's session cookie, `<payload>.<HMAC-SHA256>`, both base64url,
/// holding the user id, an expiry and the session's CSRF token.
///
/// Stateless on purpose, like ``ConsentTicket``: the key is a host secret shared through the
/// store, so any host process on the same database accepts the cookie and no session table is
/// needed. The cookie is `HttpOnly` and `SameSite=Lax`; every form repeats ``csrf``, which a
/// page of another site cannot read (double-submit against a signed value).
struct WebSession: Sendable, Hashable {
    /// The signed-in user.
    var userID: ResourceID
    /// When the session ends, whatever the browser does with the cookie.
    var expiresAt: Date
    /// The token every form of this session carries (base64url, 128 bits).
    var csrf: String

    /// The name of the HMAC key in ``WOPIStore/hostSecret(named:orCreate:)``.
    static let keyName = "web-session-key"
    /// The cookie carrying the sealed session.
    static let cookieName = "wopi_session"
    /// How long a session lasts after signing in.
    static let lifetime: TimeInterval = 8 * 3600

    /// A new session for `userID` starting at `now`, with a fresh CSRF token.
    init(userID: ResourceID, now: Date) {
        self.userID = userID
        self.expiresAt = now.addingTimeInterval(Self.lifetime)
        self.csrf = Base64URL.randomToken(byteCount: 16)
    }

    /// The cookie value: payload and MAC.
    func sealed(with key: SymmetricKey) -> String {
        let payload = Base64URL.encode(Data([userID.rawValue, String(Int64(expiresAt.timeIntervalSince1970)), csrf]
            .joined(separator: "\n").utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(("session\n" + payload).utf8), using: key)
        return payload + "." + Base64URL.encode(Data(mac))
    }

    /// Opens a cookie value; `nil` when forged, malformed or expired.
    init?(sealed text: String, key: SymmetricKey, now: Date) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, text.utf8.count < 512, let mac = Base64URL.decode(parts[1]),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(("session\n" + parts[0]).utf8), using: key),
              let payload = Base64URL.decode(parts[0]) else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, let userID = ResourceID(fields[0]), let seconds = Int64(fields[1]), !fields[2].isEmpty else { return nil }
        let expiry = Date(timeIntervalSince1970: TimeInterval(seconds))
        guard expiry > now else { return nil }
        self.userID = userID
        self.expiresAt = expiry
        self.csrf = fields[2]
    }

    /// Whether a form's `csrf` field belongs to this session (constant time).
    func accepts(csrf sent: String?) -> Bool {
        guard let sent, !sent.isEmpty else { return false }
        return ConstantTime.equal(csrf, sent)
    }
}

extension WOPIBackend {
    /// The session and user of a request with a valid web-front session cookie (the web front and share pages).
    func webSession(_ request: Request) async throws -> (WebSession, UserRecord)? {
        guard let value = request.cookies[WebSession.cookieName]?.value,
              let session = WebSession(sealed: value, key: try await webSessionKey(), now: configuration.now()),
              let user = try await store.user(id: session.userID) else { return nil }
        return (session, user)
    }

    /// The HMAC key of session cookies, created on first use and shared through the store.
    func webSessionKey() async throws -> SymmetricKey {
        SymmetricKey(data: try await store.hostSecret(named: WebSession.keyName) {
            Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        })
    }
}
