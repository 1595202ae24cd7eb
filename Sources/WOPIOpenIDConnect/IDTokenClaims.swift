import Foundation
import WOPIAuthorization
import WOPICore

/// The claims of an id_token whose signature verified, and the rules they must meet
/// (OpenID Connect Core 1.0 §3.1.3.7, steps 2–3 and 9–11).
public struct IDTokenClaims: Sendable, Hashable {
    /// `iss`.
    public var issuer: String
    /// `sub`.
    public var subject: String
    /// `aud`, a string or an array in the token.
    public var audiences: [String]
    /// `azp`.
    public var authorizedParty: String?
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nbf`.
    public var notBefore: Date?
    /// `nonce`.
    public var nonce: String?
    /// `name`.
    public var name: String?
    /// The configured username claim, when it is a string.
    public var username: String?

    /// Reads the claims from the token's payload JSON; throws `malformed_token` when one it must have is missing.
    public init(payload: Data, usernameClaim: String) throws(OpenIDSignInError) {
        guard let object = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else {
            throw OpenIDSignInError(.malformedToken, "the id_token's payload is not a JSON object")
        }
        func time(_ name: String) -> Date? {
            (object[name] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
        }
        guard let issuer = object["iss"] as? String else { throw OpenIDSignInError(.malformedToken, "the id_token has no iss") }
        guard let subject = object["sub"] as? String, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw OpenIDSignInError(.malformedToken, "the id_token has no sub of 1 to 255 bytes")
        }
        let audiences: [String]
        if let single = object["aud"] as? String {
            audiences = [single]
        } else if let several = object["aud"] as? [String], !several.isEmpty {
            audiences = several
        } else {
            throw OpenIDSignInError(.malformedToken, "the id_token has no aud")
        }
        guard let expiresAt = time("exp") else { throw OpenIDSignInError(.malformedToken, "the id_token has no exp") }
        guard let issuedAt = time("iat") else { throw OpenIDSignInError(.malformedToken, "the id_token has no iat") }
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.authorizedParty = object["azp"] as? String
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.notBefore = time("nbf")
        self.nonce = object["nonce"] as? String
        self.name = (object["name"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        self.username = (object[usernameClaim] as? String).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Checks issuer, audience (and `azp` when there are several audiences or it is present), times with
    /// `skew` of tolerance, and the nonce; throws the first rule broken.
    public func check(issuer expectedIssuer: String, clientID: String, nonce expectedNonce: String, now: Date,
                      skew: TimeInterval) throws(OpenIDSignInError) {
        guard issuer == expectedIssuer else { throw OpenIDSignInError(.wrongIssuer, "iss is not the configured issuer") }
        guard audiences.contains(clientID) else { throw OpenIDSignInError(.wrongAudience, "aud does not name this host's client id") }
        if audiences.count > 1 || authorizedParty != nil {
            // Several audiences: the token must say it was issued to this client (§3.1.3.7 steps 4–5).
            guard authorizedParty == clientID else { throw OpenIDSignInError(.wrongAudience, "azp is missing or names another client") }
        }
        guard now.timeIntervalSince(expiresAt) < skew else { throw OpenIDSignInError(.expired, "exp has passed") }
        guard issuedAt.timeIntervalSince(now) <= skew else { throw OpenIDSignInError(.notYetValid, "iat lies in the future") }
        if let notBefore { guard notBefore.timeIntervalSince(now) <= skew else { throw OpenIDSignInError(.notYetValid, "nbf lies in the future") } }
        guard let nonce, ConstantTime.equal(nonce, expectedNonce) else {
            throw OpenIDSignInError(.nonceMismatch, "the nonce is missing or not this sign-in's")
        }
    }
}
