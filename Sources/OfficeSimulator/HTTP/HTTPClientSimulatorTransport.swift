import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A ``SimulatorTransport`` over AsyncHTTPClient: redirects disabled (the sign-in flow must read the
/// final 302 itself, RFC 6749 §4.1.2), no response decompression, a per-request timeout.
///
/// It owns its `HTTPClient`; use ``withTransport(timeout:maximumBodySize:_:)``, which always shuts it down.
public struct HTTPClientSimulatorTransport: SimulatorTransport {
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let maximumBodySize: Int

    private init(client: HTTPClient, timeout: TimeAmount, maximumBodySize: Int) {
        self.client = client
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
    }

    /// Runs `body` with a transport whose client is shut down afterwards, whether `body` returns or throws.
    ///
    /// - Parameters:
    ///   - timeout: The longest one request may take, from connecting to the last byte.
    ///   - maximumBodySize: The largest response body accepted, in bytes (documents included).
    ///   - body: What to do with the transport.
    public static func withTransport<Result: Sendable>(
        timeout: Duration = .seconds(60),
        maximumBodySize: Int = 512 << 20,
        _ body: (HTTPClientSimulatorTransport) async throws -> Result
    ) async throws -> Result {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // A refused connection is retried until the connect timeout; keep it short so a dead host fails fast.
        configuration.timeout.connect = .seconds(3)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let transport = HTTPClientSimulatorTransport(client: client, timeout: .nanoseconds(nanoseconds), maximumBodySize: maximumBodySize)
        let result: Result
        do {
            result = try await body(transport)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    /// Sends the request and collects the whole answer.
    public func send(_ request: SimulatorRequest) async throws -> SimulatorResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(outgoing, timeout: timeout)
        let buffer = try await response.body.collect(upTo: maximumBodySize)
        return SimulatorResponse(
            status: Int(response.status.code),
            headers: response.headers.map { SimulatorHeader($0.name, $0.value) },
            body: Data(buffer.readableBytesView))
    }

    /// Sends the head and the first `byteCount` bytes of the body, announcing the whole length,
    /// then fails the body stream, so the client closes the connection mid-upload.
    public func sendDroppingConnection(_ request: SimulatorRequest, after byteCount: Int) async throws -> SimulatorResponse? {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        let body = request.body ?? Data()
        let first = ByteBuffer(bytes: body.prefix(max(0, min(byteCount, body.count))))
        let chunks = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
            if first.readableBytes > 0 { continuation.yield(first) }
            continuation.finish(throwing: PlannedDrop())
        }
        outgoing.body = .stream(chunks, length: .known(Int64(body.count)))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: timeout)
        } catch {
            return nil
        }
        let buffer = try await response.body.collect(upTo: maximumBodySize)
        return SimulatorResponse(
            status: Int(response.status.code),
            headers: response.headers.map { SimulatorHeader($0.name, $0.value) },
            body: Data(buffer.readableBytesView))
    }

    /// Ends the body stream of ``sendDroppingConnection(_:after:)``.
    private struct PlannedDrop: Error {}
}
