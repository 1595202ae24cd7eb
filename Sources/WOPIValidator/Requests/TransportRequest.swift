/// An HTTP request the runner asks a ``WOPITransport`` to send.
public struct TransportRequest: Sendable, Hashable {
    /// `GET` or `POST`.
    public let method: String
    /// The absolute URL, query included.
    public let url: String
    /// Header fields in the order the original runner adds them.
    public let headers: [HeaderField]
    /// The body; `nil` for GET. POST requests without content carry an empty body (`Content-Length: 0`).
    public let body: [UInt8]?

    /// Creates a request.
    public init(method: String, url: String, headers: [HeaderField], body: [UInt8]?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
