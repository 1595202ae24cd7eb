import Foundation
import WOPICore

/// An issued OAuth 2.0 authorization code (RFC 6749 §4.1.2), stored by its digest.
///
/// It is bound to the client, the redirect URI, the user, the PKCE challenge (RFC 7636 §4.4) and
/// the session context; ``grantID`` names every token issued from it, so that a second use of
/// the code can revoke them all (RFC 6749 §4.1.2, §10.5).
public struct AuthorizationCodeRecord: Sendable, Hashable {
    /// The digest of the code.
    public var digest: SecretDigest
    /// The client the code was issued to.
    public var clientID: String
    /// The redirect URI the code was issued for.
    public var redirectURI: String
    /// Whether the authorization request named `redirect_uri`, which the token request must then repeat (RFC 6749 §4.1.3).
    public var redirectURIRequired: Bool
    /// The user who signed in.
    public var userID: ResourceID
    /// The scope asked for (informational; this host has one scope).
    public var scope: String
    /// The PKCE S256 `code_challenge`, if the request carried one.
    public var codeChallenge: String?
    /// The digest of the session context `sc` issued with the code, if one was.
    public var sessionContextDigest: SecretDigest?
    /// Names the grant: every token issued from this code, and their rotated successors.
    public var grantID: String
    /// When the code was issued.
    public var createdAt: Date
    /// When the code stops being redeemable.
    public var expiresAt: Date
    /// When it was redeemed, if it was.
    public var redeemedAt: Date?

    /// Creates a record.
    public init(digest: SecretDigest, clientID: String, redirectURI: String, redirectURIRequired: Bool, userID: ResourceID,
                scope: String, codeChallenge: String?, sessionContextDigest: SecretDigest?, grantID: String,
                createdAt: Date, expiresAt: Date, redeemedAt: Date? = nil) {
        self.digest = digest
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.redirectURIRequired = redirectURIRequired
        self.userID = userID
        self.scope = scope
        self.codeChallenge = codeChallenge
        self.sessionContextDigest = sessionContextDigest
        self.grantID = grantID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.redeemedAt = redeemedAt
    }
}
