/// Sends one HTTP request and returns the complete answer, never following a redirect.
///
/// The simulator and the validator talk to hosts only through this protocol, so their logic can be
/// exercised against an in-memory host; ``AsyncHTTPClientTransport`` is the one for real hosts.
/// A 3xx is an answer like any other: the sign-in flow reads the final 302 itself (RFC 6749 §4.1.2) and
/// Microsoft's validator checks redirects itself.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; throws only when no answer arrives (connection refused, timeout, body too large).
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Sends `request` but drops the connection after `byteCount` bytes of its body, as a phone
    /// losing its network halfway through an upload does.
    ///
    /// Transports that cannot do this keep the default, which throws ``ConnectionDropUnsupported``.
    ///
    /// - Returns: `nil` when the connection was dropped as planned; the server's answer when it
    ///   answered before the body was complete.
    func sendDroppingConnection(_ request: TransportRequest, after byteCount: Int) async throws -> TransportResponse?
}

extension HTTPTransport {
    /// Throws ``ConnectionDropUnsupported``: a transport drops connections only when it says it can.
    public func sendDroppingConnection(_ request: TransportRequest, after byteCount: Int) async throws -> TransportResponse? {
        throw ConnectionDropUnsupported()
    }
}
