import Crypto
import Foundation
import WOPICore

/// Proof, carried by the consent form, that this browser signed in as a user for one
/// authorization request: `<payload>.<HMAC-SHA256>`, both base64url, with the user id, an
/// expiry, the request's fingerprint and the digest of the CSRF cookie.
///
/// Stateless on purpose: the consent step must not need a server-side session table.
struct ConsentTicket: Sendable {
    var userID: String
    var expiresAt: Date
    var fingerprint: String
    var csrfDigest: String

    /// The name of the HMAC key in ``WOPIStore/hostSecret(named:orCreate:)``.
    static let keyName = "oauth-consent-key"

    func sealed(with key: SymmetricKey) -> String {
        let payload = Base64URL.encode(Data([userID, String(Int64(expiresAt.timeIntervalSince1970)), fingerprint, csrfDigest]
            .joined(separator: "\n").utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)
        return payload + "." + Base64URL.encode(Data(mac))
    }

    /// Opens a ticket; `nil` when forged, malformed or expired.
    init?(sealed text: String, key: SymmetricKey, now: Date) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let mac = Base64URL.decode(parts[1]),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(parts[0].utf8), using: key),
              let payload = Base64URL.decode(parts[0]) else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 4, let seconds = Int64(fields[1]) else { return nil }
        let expiry = Date(timeIntervalSince1970: TimeInterval(seconds))
        guard expiry > now else { return nil }
        self.init(userID: fields[0], expiresAt: expiry, fingerprint: fields[2], csrfDigest: fields[3])
    }

    init(userID: String, expiresAt: Date, fingerprint: String, csrfDigest: String) {
        self.userID = userID
        self.expiresAt = expiresAt
        self.fingerprint = fingerprint
        self.csrfDigest = csrfDigest
    }
}
