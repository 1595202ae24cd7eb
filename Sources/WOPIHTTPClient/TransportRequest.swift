import Foundation

/// A request for an ``HTTPTransport`` to send: method, absolute URL, header fields and an optional body.
public struct TransportRequest: Sendable, Hashable {
    /// The HTTP method, for example `GET` or `POST`.
    public var method: String
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields, in the order they are sent.
    public var headers: [HeaderField]
    /// The body, or `nil` for none; a POST without content carries an empty body (`Content-Length: 0`).
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [HeaderField] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
