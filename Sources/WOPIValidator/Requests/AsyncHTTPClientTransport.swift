import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A ``WOPITransport`` over AsyncHTTPClient with redirects disabled and a per-request timeout.
///
/// It owns its `HTTPClient`; use ``withTransport(timeout:_:)``, which always shuts the client down.
public struct AsyncHTTPClientTransport: WOPITransport {
    private let client: HTTPClient
    private let timeout: TimeAmount

    private init(client: HTTPClient, timeout: TimeAmount) {
        self.client = client
        self.timeout = timeout
    }

    /// Runs `body` with a transport whose client is shut down afterwards, whether `body` returns or throws.
    public static func withTransport<Result: Sendable>(
        timeout: Duration = .seconds(60),
        _ body: (AsyncHTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // A refused connection is retried until the connect timeout; keep that short so a dead host fails fast.
        configuration.timeout.connect = .seconds(3)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let transport = AsyncHTTPClientTransport(client: client, timeout: .nanoseconds(nanoseconds))
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

    /// Sends the request; throws when the host cannot be reached or times out.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(outgoing, timeout: timeout)
        // Validator bodies are small JSON documents or the stand-in resource files; cap at 64 MiB anyway.
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return TransportResponse(
            status: Int(response.status.code),
            headers: response.headers.map { HeaderField($0.name, $0.value) },
            body: Array(buffer.readableBytesView))
    }
}
