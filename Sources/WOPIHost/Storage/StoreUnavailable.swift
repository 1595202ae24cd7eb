/// The metadata store cannot be used now: its database is unreachable, refuses connections, or its
/// file is locked or unreadable.
///
/// Stores throw it within seconds instead of waiting out a dependency that is down, and go on
/// throwing it at once until the database answers again; then the next request works, with no
/// restart. The host answers it with `503 Service Unavailable` and `Retry-After` (for WOPI requests
/// with the reason in `X-WOPI-ServerError` too), and `GET /health/ready` reports it, so clients retry
/// and balancers send traffic elsewhere.
public struct StoreUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, in a few words: no host name, path, password or token.
    public var reason: String

    /// Creates the error with its reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// One line naming the problem.
    public var description: String { "the document database is unavailable: \(reason)" }
}
