import Foundation

/// Storage for the built-in OAuth 2.0 authorization server: authorization codes and OAuth tokens,
/// all kept as digests (``SecretDigest``), never in the clear.
///
/// Conform alongside ``WOPIStore`` to give your own database sign-in; `SQLiteStore` is the
/// embedded default. The two redeeming methods must each be one transaction: they are what makes
/// a code single-use and a refresh token good for one rotation, even under concurrent requests.
public protocol AuthorizationStore: Sendable {
    /// Stores a newly issued code.
    func storeAuthorizationCode(_ code: AuthorizationCodeRecord) async throws
    /// The code with this digest, redeemed or not.
    func authorizationCode(digest: SecretDigest) async throws -> AuthorizationCodeRecord?
    /// Marks the code redeemed and stores `tokens`, atomically.
    ///
    /// - Returns: `false`, storing nothing, when the code was already redeemed (or is unknown);
    ///   the caller then treats it as a reused code.
    func redeemAuthorizationCode(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool
    /// The token with this digest, revoked or not.
    func oauthToken(digest: SecretDigest) async throws -> OAuthTokenRecord?
    /// Revokes the refresh token and stores `tokens` (its successors), atomically.
    ///
    /// - Returns: `false`, storing nothing, when the refresh token was already revoked (or is unknown).
    func rotateRefreshToken(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool
    /// Revokes every token of a grant (RFC 6749 §4.1.2 and §10.4: reuse of a code or a refresh token).
    func revokeGrant(_ grantID: String, now: Date) async throws
    /// Deletes codes and tokens that expired before `cutoff`.
    func removeExpiredAuthorizationRecords(before cutoff: Date) async throws
}
