import Foundation

/// A response exactly as the server sent it: status, header fields and the whole body.
public struct TransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields, in order, repeated fields kept apart.
    public var headers: [HeaderField]
    /// The whole body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [HeaderField] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matching the name case-insensitively (RFC 9110 §5.1).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of a header, for fields that may repeat such as `Set-Cookie`.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body as UTF-8 text; invalid sequences are replaced.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
