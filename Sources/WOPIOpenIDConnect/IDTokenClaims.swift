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
    /// `client_id`, which JWT access tokens carry (RFC 9068 §2.2).
    public var clientID: String?
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
        self.clientID = object["client_id"] as? String
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
        try checkTimes(now: now, skew: skew)
        guard let nonce, ConstantTime.equal(nonce, expectedNonce) else {
            throw OpenIDSignInError(.nonceMismatch, "the nonce is missing or not this sign-in's")
        }
    }

    /// Checks a token the provider issued to another of its clients, the provider's own app, which presents it to the
    /// host (RFC 8693 `subject_token`): the issuer, that the app is the party it was issued to (`azp`, or `client_id` of a
    /// JWT access token, else the only audience), and the times. There is no nonce: the host did not ask for the token.
    public func checkAppToken(issuer expectedIssuer: String, appClientID: String, now: Date, skew: TimeInterval) throws(OpenIDSignInError) {
        guard issuer == expectedIssuer else { throw OpenIDSignInError(.wrongIssuer, "iss is not the configured issuer") }
        if let party = authorizedParty ?? clientID {
            guard party == appClientID else { throw OpenIDSignInError(.wrongAudience, "the token was issued to another client") }
        } else {
            guard audiences == [appClientID] else { throw OpenIDSignInError(.wrongAudience, "the token's audience is not the provider's app") }
        }
        if let authorizedParty, let clientID, authorizedParty != clientID {
            throw OpenIDSignInError(.wrongAudience, "azp and client_id name different clients")
        }
        try checkTimes(now: now, skew: skew)
    }

    /// `exp` not passed, `iat` and `nbf` not in the future, each with `skew` of tolerance.
    private func checkTimes(now: Date, skew: TimeInterval) throws(OpenIDSignInError) {
        guard now.timeIntervalSince(expiresAt) < skew else { throw OpenIDSignInError(.expired, "exp has passed") }
        guard issuedAt.timeIntervalSince(now) <= skew else { throw OpenIDSignInError(.notYetValid, "iat lies in the future") }
        if let notBefore { guard notBefore.timeIntervalSince(now) <= skew else { throw OpenIDSignInError(.notYetValid, "nbf lies in the future") } }
    }
}
