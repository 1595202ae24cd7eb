import Foundation

/// What a WOPI access token says: whose it is, what it opens, and until when.
public struct AccessTokenClaims: Sendable, Hashable {
    /// The user the token acts for.
    public var userID: ResourceID
    /// The single resource the token is valid for.
    public var resource: WOPIResource
    /// The instant the token stops working, to the millisecond.
    public var expiresAt: Date

    /// Creates claims; `expiresAt` is truncated to whole milliseconds, the unit of `access_token_ttl`.
    public init(userID: ResourceID, resource: WOPIResource, expiresAt: Date) {
        self.userID = userID
        self.resource = resource
        self.expiresAt = Date(millisecondsSince1970: expiresAt.millisecondsSince1970)
    }

    /// `access_token_ttl` as WOPI defines it: the expiry instant in milliseconds since the Unix
    /// epoch, not a duration (docs/rest/src/concepts.rst, "access_token_ttl").
    public var accessTokenTTL: Int64 { expiresAt.millisecondsSince1970 }
}

extension Date {
    /// Whole milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The instant `milliseconds` after 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}
