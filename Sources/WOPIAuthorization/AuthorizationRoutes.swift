import Hummingbird
import WOPIHost

/// Everything this product serves, as routes of the host (a `WOPIHostExtension`):
///
/// - the OAuth 2.0 authorization server, the bootstrapper and app-to-app sign-in (``AuthorizationServer``)
///   when the configuration has an ``WOPIHost/WOPIHostConfiguration/officeRegistration``;
/// - sign-in through an OpenID Connect provider when it has an ``WOPIHost/WOPIHostConfiguration/openIDSignIn``
///   and the store keeps identity links;
/// - the web front, the file browser at `/` for the provider's users, and the pages of share links at `/share/`.
///
/// Every password form of the host shares one throttle and password checker
/// (``WOPIHost/WOPIHostConfiguration/authorizationPolicy``).
///
/// ```swift
/// let router = WOPIHostApplication.router(backend: backend, extensions: [AuthorizationRoutes()])
/// ```
public struct AuthorizationRoutes: WOPIHostExtension {
    /// The routes, configured by the backend's configuration.
    public init() {}

    /// Adds the routes to `router`, which serves `backend`.
    public func addRoutes(to router: Router<WOPIRequestContext>, backend: WOPIBackend) {
        ShareController(backend: backend).addRoutes(to: router)
        // One throttle and password checker for every password form of this host.
        let signIn = SignInGuard(policy: backend.configuration.authorizationPolicy, store: backend.store)
        let authorization = AuthorizationServer(backend: backend, sharing: signIn)
        authorization?.addRoutes(to: router)
        // Sign-in through the operator's OpenID Connect provider, for the web front and Office's authorization page.
        if let openID = backend.configuration.openIDSignIn, let store = backend.store as? any WOPIStore & IdentityLinkStore {
            OpenIDSignInController(backend: backend, signIn: openID, store: store, authorization: authorization).addRoutes(to: router)
        }
        WebFrontController(backend: backend, sharing: signIn).addRoutes(to: router)
    }
}
