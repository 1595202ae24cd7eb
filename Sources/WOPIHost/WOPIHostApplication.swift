import Foundation
import Hummingbird
import Logging

/// Builds the WOPI host's HTTP application.
public enum WOPIHostApplication {
    /// The router with every WOPI route under `/wopi`, request logging, and a health check at `/health`.
    public static func router(backend: WOPIBackend) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLogMiddleware())
        router.get("health") { _, _ in "ok" }
        let wopi = router.group("wopi")
        FilesController(backend: backend).addRoutes(to: wopi)
        ContainersController(backend: backend).addRoutes(to: wopi)
        EcosystemController(backend: backend).addRoutes(to: wopi)
        return router
    }

    /// A ready-to-run application listening on `host:port`.
    public static func make(backend: WOPIBackend, host: String = "127.0.0.1", port: Int = 8080,
                            logger: Logger = Logger(label: "wopi")) -> some ApplicationProtocol {
        Application(router: router(backend: backend),
                    configuration: .init(address: .hostname(host, port: port), serverName: "WOPIKit"),
                    logger: logger)
    }
}
