import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// Builds the WOPI host's HTTP application.
public enum WOPIHostApplication {
    /// The router with every WOPI route under `/wopi`, request logging, health checks at `/health`, `/health/live` and
    /// `/health/ready`, 431 for oversized headers (``WOPIHostConfiguration/headerLimits``), metrics and audit events
    /// (``WOPIHostConfiguration/monitor``), and the routes of each of `extensions`, added in order after the host's own.
    ///
    /// Without extensions the host serves the WOPI protocol only: a provider that keeps its own authorization server
    /// and pages embeds just this. The `WOPIAuthorization` product's routes add sign-in, the web front and the share pages.
    ///
    /// With `proofKeys`, every `/wopi` request must carry a valid WOPI proof (`wopi serve --discovery`).
    public static func router(backend: WOPIBackend, proofKeys: ProofKeyCache? = nil,
                              extensions: [any WOPIHostExtension] = []) -> Router<WOPIRequestContext> {
        let router = Router(context: WOPIRequestContext.self)
        // A route that reads its body sends `100 Continue` first; one that refuses before reading answers at once.
        router.add(middleware: ExpectContinueMiddleware())
        // Header limits first, so an oversized request reaches nothing; then metrics and request scope.
        router.add(middleware: HeaderLimitMiddleware(limits: backend.configuration.headerLimits))
        router.add(middleware: OperationsMiddleware(metrics: backend.configuration.monitor.metrics))
        router.add(middleware: DocumentWriteFailureMiddleware(backend: backend))
        HealthController(backend: backend).addRoutes(to: router)
        router.add(middleware: RequestLogMiddleware())
        router.get("health") { _, _ in "ok" }
        let wopi = router.group("wopi")
        if proofKeys != nil || backend.configuration.webClients != nil {
            wopi.add(middleware: ProofKeyMiddleware(cache: proofKeys, webClients: backend.configuration.webClients,
                                                 publicURL: backend.configuration.publicURL, now: backend.configuration.now,
                                                 metrics: backend.configuration.monitor.metrics))
        }
        FilesController(backend: backend).addRoutes(to: wopi)
        ContainersController(backend: backend).addRoutes(to: wopi)
        EcosystemController(backend: backend).addRoutes(to: wopi)
        for routes in extensions { routes.addRoutes(to: router, backend: backend) }
        return router
    }

    /// The metrics endpoint: `GET /metrics` in the Prometheus text format, on a port of its own
    /// (`wopi serve --metrics-port`), so it is never exposed where WOPI traffic is.
    public static func metricsRouter(_ metrics: HostMetrics) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        return router
    }

    /// A ready-to-run application listening on `host:port`.
    ///
    /// A connection that sends nothing for `idleTimeout` — between requests or in the middle of an
    /// upload — is closed, so stalled clients cannot pin descriptors or half-written uploads.
    ///
    /// `eventLoops` reads and writes the connections; the request handlers run on Swift concurrency's
    /// own pool. `wopi serve` gives it fewer threads than cores (``defaultEventLoopCount``).
    ///
    /// `extensions` add their routes as in ``router(backend:proofKeys:extensions:)``.
    public static func make(backend: WOPIBackend, proofKeys: ProofKeyCache? = nil, extensions: [any WOPIHostExtension] = [],
                            host: String = "127.0.0.1", port: Int = 8080,
                            idleTimeout: Duration = .seconds(60), eventLoops: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                            logger: Logger = Logger(label: "wopi")) -> some ApplicationProtocol {
        Application(router: router(backend: backend, proofKeys: proofKeys, extensions: extensions),
                    server: .http1(configuration: .init(additionalChannelHandlers: channelHandlers(), idleTimeout: TimeAmount(idleTimeout))),
                    configuration: .init(address: .hostname(host, port: port), serverName: "WOPIKit"),
                    eventLoopGroupProvider: .shared(eventLoops), logger: logger)
    }

    /// The channel handlers each HTTP/1.1 connection of a server running ``router(backend:proofKeys:extensions:)`` needs
    /// (Hummingbird's `HTTP1Channel.Configuration.additionalChannelHandlers`; ``make(backend:proofKeys:extensions:host:port:idleTimeout:eventLoops:logger:)``
    /// adds them): `Expect: 100-continue` handling (RFC 9110 §10.1.1), so a client that waits for `100 Continue`
    /// before it uploads gets it as soon as the route reads the body, or the refusal at once. New ones per connection.
    public static func channelHandlers() -> [any RemovableChannelHandler] {
        [ExpectContinueHandler()]
    }

    /// Network threads for a host on this machine: half its cores, at least one.
    ///
    /// Swift concurrency's pool already runs one handler thread per core; as many network threads again
    /// would have twice as many busy threads as cores. Measured on 2 cores: one event loop
    /// took CheckFileInfo from ~60 to ~43 µs of CPU a request and from ~27,000 to ~32,000 requests a second.
    public static var defaultEventLoopCount: Int { max(1, System.coreCount / 2) }
}
