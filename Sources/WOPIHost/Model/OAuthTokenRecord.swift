import Foundation
import WOPICore

/// An issued OAuth 2.0 access or refresh token (RFC 6749 §1.4, §1.5), stored by its digest.
///
/// The OAuth access token is what Office presents to the bootstrapper; it is not a WOPI access
/// token and opens no file by itself.
public struct OAuthTokenRecord: Sendable, Hashable {
    /// Which kind of token.
    public enum Kind: String, Sendable, Hashable {
        /// A bearer token for the bootstrapper and `/oauth2/app-to-app` (RFC 6750).
        case access
        /// A token that gets a new pair at the token endpoint (RFC 6749 §6), once.
        case refresh
    }

    /// The digest of the token.
    public var digest: SecretDigest
    /// Access or refresh.
    public var kind: Kind
    /// The grant the token descends from (see ``AuthorizationCodeRecord/grantID``).
    public var grantID: String
    /// The client the token was issued to.
    public var clientID: String
    /// The user the token acts for.
    public var userID: ResourceID
    /// The scope granted.
    public var scope: String
    /// The digest of the grant's session context, which must come back as X-WOPI-SessionContext.
    public var sessionContextDigest: SecretDigest?
    /// When the token was issued.
    public var createdAt: Date
    /// When it expires.
    public var expiresAt: Date
    /// When it was revoked (used, for a refresh token, or its grant revoked), if it was.
    public var revokedAt: Date?

    /// Creates a record.
    public init(digest: SecretDigest, kind: Kind, grantID: String, clientID: String, userID: ResourceID, scope: String,
                sessionContextDigest: SecretDigest?, createdAt: Date, expiresAt: Date, revokedAt: Date? = nil) {
        self.digest = digest
        self.kind = kind
        self.grantID = grantID
        self.clientID = clientID
        self.userID = userID
        self.scope = scope
        self.sessionContextDigest = sessionContextDigest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}
