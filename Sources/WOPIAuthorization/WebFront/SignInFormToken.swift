import Crypto
import Foundation
import WOPICore

/// The web front's CSRF token before sign-in: `<nonce>.<expiry>.<HMAC-SHA256>`, set as the
/// `wopi_web_csrf` cookie and repeated in the sign-in form (double-submit).
///
/// Signed with a host key (shared through the store), so a cookie planted by a sibling origin
/// (`evil.example.com` may set cookies for `example.com`) passes only if this host made it; the
/// sign-in also refuses requests that other sites or origins send (``RequestOriginRules``), which
/// is what stops a token fetched by an attacker from being used in a victim's browser.
enum SignInFormToken {
    /// How long a token is accepted after it was made.
    static let lifetime: TimeInterval = 12 * 3600
    /// A page shown with less than this left on the browser's token gets a fresh one.
    static let renewal: TimeInterval = 3600

    /// A new token expiring ``lifetime`` after `now`.
    static func issue(key: SymmetricKey, now: Date) -> String {
        let body = Base64URL.randomToken(byteCount: 16) + "." + String(Int64(now.addingTimeInterval(lifetime).timeIntervalSince1970))
        return body + "." + mac(body, key: key)
    }

    /// When `token` expires; `nil` when it is malformed or this host did not sign it.
    static func expiry(of token: String, key: SymmetricKey) -> Date? {
        guard token.utf8.count < 128, let dot = token.lastIndex(of: ".") else { return nil }
        let body = String(token[..<dot])
        guard ConstantTime.equal(mac(body, key: key), String(token[token.index(after: dot)...])),
              let seconds = body.split(separator: ".").last.flatMap({ Int64($0) }) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Whether `token` was signed by this host and has not expired at `now`.
    static func isValid(_ token: String, key: SymmetricKey, now: Date) -> Bool {
        expiry(of: token, key: key).map { $0 > now } ?? false
    }

    private static func mac(_ body: String, key: SymmetricKey) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(("signin-csrf\n" + body).utf8), using: key)))
    }
}
