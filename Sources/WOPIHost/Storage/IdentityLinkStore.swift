import Foundation
import WOPICore

/// Accounts linked to an OpenID Connect provider's people, and the sign-ins under way there.
///
/// A person is known by the pair (issuer, `sub`) their provider vouches for, never by an email
/// address or a name; one pair links to at most one account, and an account to at most one pair
/// per issuer. A link goes with its account when the account is removed.
///
/// A sign-in under way (``PendingOpenIDSignIn``) is kept by the digest of its `state` and taken
/// exactly once, whichever host of a deployment the browser comes back to.
public protocol IdentityLinkStore: Sendable {
    /// The account linked to `subject` at `issuer`.
    func user(issuer: String, subject: String) async throws -> UserRecord?

    /// Creates an account with an empty root container, linked to `subject` at `issuer`, in one atomic step.
    /// Throws ``WOPIStoreError/nameTaken(_:)`` for a duplicate name and ``WOPIStoreError/notAllowed(_:)``
    /// when the pair is already linked; both change nothing.
    func createUser(name: String, displayName: String, issuer: String, subject: String, now: Date) async throws -> UserRecord

    /// Links an existing account to `subject` at `issuer`. Throws ``WOPIStoreError/notFound`` for an
    /// unknown account and ``WOPIStoreError/notAllowed(_:)`` when the pair is linked to any account or the
    /// account already has a link at `issuer`; both change nothing.
    func linkIdentity(issuer: String, subject: String, to userID: ResourceID, now: Date) async throws

    /// The account's link at `issuer`, if it has one.
    func identityLink(userID: ResourceID, issuer: String) async throws -> IdentityLink?

    /// Every link, by issuer and then subject.
    func identityLinks() async throws -> [IdentityLink]

    /// Keeps a sign-in under way until ``PendingOpenIDSignIn/expiresAt``, and forgets those expired at `now`.
    func beginOpenIDSignIn(_ pending: PendingOpenIDSignIn, now: Date) async throws

    /// Removes and returns the sign-in whose state has this digest, if it has not expired at `now`;
    /// a second call for the same state finds nothing.
    func takeOpenIDSignIn(stateDigest: SecretDigest, now: Date) async throws -> PendingOpenIDSignIn?
}

/// One account's link to a person at an OpenID Connect provider.
public struct IdentityLink: Sendable, Hashable {
    /// The account.
    public var userID: ResourceID
    /// The provider's issuer identifier, exactly as its id_tokens carry it in `iss`.
    public var issuer: String
    /// The person's `sub` at that provider.
    public var subject: String
    /// When the link was made.
    public var linkedAt: Date

    /// Creates a link record.
    public init(userID: ResourceID, issuer: String, subject: String, linkedAt: Date) {
        self.userID = userID
        self.issuer = issuer
        self.subject = subject
        self.linkedAt = linkedAt
    }
}

/// A sign-in sent to the provider and not yet back: its `state` (kept as a digest), the browser it
/// is bound to (the digest of a cookie's secret), and where it continues.
public struct PendingOpenIDSignIn: Sendable, Hashable {
    /// SHA-256 of the `state` sent to the provider.
    public var stateDigest: SecretDigest
    /// SHA-256 of the secret in the browser's cookie; the nonce and the PKCE verifier derive from that secret.
    public var browserDigest: SecretDigest
    /// Where the sign-in continues: `web` for the web front, or `authorize?` and the OAuth authorization request.
    public var continuation: String
    /// When the sign-in was sent.
    public var createdAt: Date
    /// When it can no longer come back.
    public var expiresAt: Date

    /// Creates a record.
    public init(stateDigest: SecretDigest, browserDigest: SecretDigest, continuation: String, createdAt: Date, expiresAt: Date) {
        self.stateDigest = stateDigest
        self.browserDigest = browserDigest
        self.continuation = continuation
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
