/// What a host answered: status, headers and the whole body.
public struct TransportResponse: Sendable, Hashable {
    /// The HTTP status code.
    public let status: Int
    /// Response header fields.
    public let headers: [HeaderField]
    /// The response body.
    public let body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
