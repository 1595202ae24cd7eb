import Foundation
import Hummingbird
import Logging

/// Runs a stand-in server of the test suite (a foreign WOPI host, a definitions download, an S3 endpoint, an
/// attacker's page)
/// on 127.0.0.1 and an ephemeral port for the duration of `body`, which gets its base URL.
public enum LoopbackServer {
    public static func serve<T: Sendable>(_ router: Router<BasicRequestContext>, label: String,
                                   _ body: @Sendable (URL) async throws -> T) async throws -> T {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  continuation.yield(channel.localAddress?.port ?? 0)
                                  continuation.finish()
                              }, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else {
                group.cancelAll()
                throw CocoaError(.featureUnsupported)
            }
            defer { group.cancelAll() }
            return try await body(url)
        }
    }
}
