import Hummingbird

/// Routes another product adds to the host's router beside the WOPI routes
/// (``WOPIHostApplication/router(backend:proofKeys:extensions:)``).
///
/// The host's middleware (header limits, metrics, request logging) runs before them. The
/// `WOPIAuthorization` product's `AuthorizationRoutes` is one: sign-in, the web front and the share pages.
public protocol WOPIHostExtension: Sendable {
    /// Adds the routes to `router`, which serves `backend`.
    func addRoutes(to router: Router<WOPIRequestContext>, backend: WOPIBackend)
}
