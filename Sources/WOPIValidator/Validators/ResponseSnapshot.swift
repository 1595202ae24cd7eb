import WOPIHTTPClient

/// A host's answer as validators see it, or the reason no answer arrived.
public struct ResponseSnapshot: Sendable, Hashable {
    /// The HTTP status; 0 when the request failed before a response (see ``transportError``).
    public let status: Int
    /// Response headers.
    public let headers: [HeaderField]
    /// The raw body.
    public let body: [UInt8]
    /// The body decoded as UTF-8 (byte-order mark dropped) when the request expects text; `nil` for GetFile.
    public let text: String?
    /// Why no HTTP response was received (connection refused, timeout, …).
    public let transportError: String?

    /// Wraps a received response; `expectsText` is false for binary downloads.
    public init(_ response: TransportResponse, expectsText: Bool) {
        status = response.status
        headers = response.headers
        body = Array(response.body)
        transportError = nil
        if expectsText {
            let bytes = body.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(body.dropFirst(3)) : body
            text = String(decoding: bytes, as: UTF8.self)
        } else {
            text = nil
        }
    }

    /// A stand-in for a request that produced no response.
    public init(transportError: String) {
        status = 0
        headers = []
        body = []
        text = transportError
        self.transportError = transportError
    }

    /// The value of a header (case-insensitive).
    public func header(_ name: String) -> String? { headers.value(for: name) }
}
