/// Sends one HTTP request to a WOPI host and returns its complete answer.
///
/// The runner depends only on this, so its logic can be tested against an in-memory host;
/// ``AsyncHTTPClientTransport`` is the implementation for real hosts. Redirects must not be followed
/// (Microsoft's runner validates the 3xx itself). Throw only when no HTTP response arrived at all.
public protocol WOPITransport: Sendable {
    /// Sends `request` and returns the host's response.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
