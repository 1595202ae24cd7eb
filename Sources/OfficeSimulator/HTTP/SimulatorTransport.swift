import Foundation

/// One HTTP header field as it travels, name and value unchanged.
public struct SimulatorHeader: Sendable, Hashable {
    /// The field name, in the case it was sent or received.
    public let name: String
    /// The field value.
    public let value: String

    /// Creates a header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request the simulator sends: method, absolute URL, headers and an optional body.
public struct SimulatorRequest: Sendable, Hashable {
    /// The HTTP method, for example `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// The header fields, in order.
    public var headers: [SimulatorHeader]
    /// The body, or `nil` for none.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [SimulatorHeader] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A response exactly as the host sent it; redirects are never followed for the simulator.
public struct SimulatorResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields, in order, repeated fields kept apart.
    public var headers: [SimulatorHeader]
    /// The whole body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [SimulatorHeader] = [], body: Data = Data()) {
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

/// Sends one HTTP request and returns the host's answer without following redirects.
///
/// The simulator talks to hosts only through this protocol, so its logic can be exercised
/// against any HTTP stack; ``HTTPClientSimulatorTransport`` is the real one.
public protocol SimulatorTransport: Sendable {
    /// Sends `request`; throws only when no answer arrives (connection refused, timeout).
    func send(_ request: SimulatorRequest) async throws -> SimulatorResponse

    /// Sends `request` but drops the connection after `byteCount` bytes of its body, as a phone
    /// losing its network halfway through an upload does (the `upload-pending` scenario).
    ///
    /// - Returns: `nil` when the connection was dropped as planned; the host's answer when it
    ///   answered before the body was complete.
    func sendDroppingConnection(_ request: SimulatorRequest, after byteCount: Int) async throws -> SimulatorResponse?
}

/// The error a transport throws when it cannot drop a connection on purpose.
public struct ConnectionDropUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}
    /// A one-line explanation.
    public var description: String { "this transport cannot drop a connection halfway through a body" }
}

extension SimulatorTransport {
    /// Transports that cannot drop connections say so.
    public func sendDroppingConnection(_ request: SimulatorRequest, after byteCount: Int) async throws -> SimulatorResponse? {
        throw ConnectionDropUnsupported()
    }
}
