import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// An ``HTTPTransport`` over AsyncHTTPClient: redirects disabled, no response decompression (a body is
/// judged as the server sent it), a 3-second connect timeout, a per-request timeout and a body limit
/// enforced while the body is read. Every failure it throws is a ``TransportFailure``, in plain words.
///
/// It owns its `HTTPClient`; use ``withTransport(timeout:maximumBodySize:_:)``, which always shuts it down.
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let maximumBodySize: Int
    private let timeoutSeconds: Int

    /// The largest response body every `wopi` command accepts unless told otherwise: 64 MiB.
    public static let defaultMaximumBodySize = 64 << 20

    /// How long a connection may take to open.
    static let connectTimeoutSeconds = 3

    private init(client: HTTPClient, timeout: TimeAmount, timeoutSeconds: Int, maximumBodySize: Int) {
        self.client = client
        self.timeout = timeout
        self.timeoutSeconds = timeoutSeconds
        self.maximumBodySize = maximumBodySize
    }

    /// Runs `body` with a transport whose client is shut down afterwards, whether `body` returns or throws.
    ///
    /// - Parameters:
    ///   - timeout: The longest one request may take, from connecting to the last byte.
    ///   - maximumBodySize: The largest response body accepted, in bytes; reading stops there and
    ///     ``send(_:)`` throws. The default is ``defaultMaximumBodySize``, 64 MiB.
    ///   - body: What to do with the transport.
    public static func withTransport<Result: Sendable>(
        timeout: Duration = .seconds(60),
        maximumBodySize: Int = defaultMaximumBodySize,
        _ body: (AsyncHTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // A refused connection is retried until the connect timeout; keep it short so a dead host fails fast.
        configuration.timeout.connect = .seconds(Int64(connectTimeoutSeconds))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let transport = AsyncHTTPClientTransport(client: client, timeout: .nanoseconds(nanoseconds), timeoutSeconds: Int(seconds),
                                                 maximumBodySize: maximumBodySize)
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

    /// Sends the request and collects the whole answer; throws a ``TransportFailure`` when the server
    /// cannot be reached, the request times out or the body is longer than the maximum.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = head(of: request)
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            return try await answer(to: client.execute(outgoing, timeout: timeout))
        } catch let error as CancellationError {
            throw error
        } catch {
            throw failure(error)
        }
    }

    /// `error` in plain words.
    private func failure(_ error: any Error) -> TransportFailure {
        TransportFailure.from(error, timeout: timeoutSeconds, connectTimeout: Self.connectTimeoutSeconds, maximumBodySize: maximumBodySize)
    }

    /// Sends the head and the first `byteCount` bytes of the body, announcing the whole length,
    /// then fails the body stream, so the client closes the connection mid-upload.
    public func sendDroppingConnection(_ request: TransportRequest, after byteCount: Int) async throws -> TransportResponse? {
        var outgoing = head(of: request)
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
        do {
            return try await answer(to: response)
        } catch {
            throw failure(error)
        }
    }

    private func head(of request: TransportRequest) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        return outgoing
    }

    private func answer(to response: HTTPClientResponse) async throws -> TransportResponse {
        let buffer = try await response.body.collect(upTo: maximumBodySize)
        return TransportResponse(
            status: Int(response.status.code),
            headers: response.headers.map { HeaderField($0.name, $0.value) },
            body: Data(buffer.readableBytesView))
    }

    /// Ends the body stream of ``sendDroppingConnection(_:after:)``.
    private struct PlannedDrop: Error {}
}
