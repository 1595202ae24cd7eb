import Foundation

/// Lifetimes and limits of the built-in OAuth 2.0 authorization server.
///
/// The defaults follow RFC 6749 §4.1.2 ("a maximum authorization code lifetime of 10 minutes is
/// RECOMMENDED"; five is used) and keep OAuth access tokens short because refresh tokens rotate.
public struct AuthorizationPolicy: Sendable, Hashable {
    /// How long an authorization code may be redeemed. Default 5 minutes.
    public var codeLifetime: TimeInterval
    /// How long an OAuth access token (the bootstrapper's bearer token) lives. Default 1 hour.
    public var accessTokenLifetime: TimeInterval
    /// How long a refresh token lives; each use replaces it with a new one. Default 30 days.
    public var refreshTokenLifetime: TimeInterval
    /// How long the consent step may follow a successful sign-in. Default 10 minutes.
    public var consentLifetime: TimeInterval
    /// Wrong passwords allowed per user (and address, when known) within ``failureWindow``. Default 5.
    public var maximumFailedSignIns: Int
    /// The window over which failed sign-ins count. Default 15 minutes.
    public var failureWindow: TimeInterval

    /// Creates a policy; every argument has the default described on its property.
    public init(codeLifetime: TimeInterval = 300, accessTokenLifetime: TimeInterval = 3600,
                refreshTokenLifetime: TimeInterval = 30 * 86400, consentLifetime: TimeInterval = 600,
                maximumFailedSignIns: Int = 5, failureWindow: TimeInterval = 900) {
        self.codeLifetime = codeLifetime
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.consentLifetime = consentLifetime
        self.maximumFailedSignIns = maximumFailedSignIns
        self.failureWindow = failureWindow
    }
}
