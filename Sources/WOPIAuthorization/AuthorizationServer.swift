import Crypto
import Foundation
import Hummingbird
import NIOCore
import OfficeURLScheme
import WOPICore
import WOPIHost

/// The built-in OAuth 2.0 authorization server and WOPI bootstrapper (PROTOCOL.md §2–3;
/// RFC 6749, RFC 6750, RFC 7636; native/src/identity; rest/src/bootstrapper).
///
/// Routes, relative to the host's public URL:
/// - `GET|POST /oauth2/authorize`: sign-in and consent pages, ending in a 302 to the client.
/// - `POST /oauth2/token`: `authorization_code` and `refresh_token` grants.
/// - `POST /oauth2/app-to-app`: the provider's app, signed in, asks for a code for Office.
/// - `GET|POST /wopibootstrapper`: Bootstrap, GET_ROOT_CONTAINER, GET_NEW_ACCESS_TOKEN.
///
/// The clients are Office (``OfficeRegistration``) and the provider's own app (``FirstPartyApp``).
public struct AuthorizationServer: Sendable {
    /// Stores, token signer and configuration of the WOPI host.
    public let backend: WOPIBackend
    /// Where codes and OAuth tokens are kept.
    public let store: any AuthorizationStore
    /// Office's registration.
    public let registration: OfficeRegistration
    /// Lifetimes and limits.
    public let policy: AuthorizationPolicy

    let clients: [OAuthClient]
    let throttle: SignInThrottle
    let passwords: PasswordChecker
    /// Verified against when a sign-in name is unknown, so that a wrong name costs as much time as a wrong password.
    let decoyPasswordHash: PasswordHash

    /// Creates the server for `backend`, with the registration and policy of its configuration.
    ///
    /// Returns `nil` when the configuration has no ``WOPIHost/WOPIHostConfiguration/officeRegistration``
    /// or the backend's store does not also conform to `AuthorizationStore`.
    public init?(backend: WOPIBackend) {
        self.init(backend: backend, sharing: SignInGuard(policy: backend.configuration.authorizationPolicy, store: backend.store))
    }

    /// The same, with the throttle and password checker the host's other sign-in forms use.
    init?(backend: WOPIBackend, sharing signIn: SignInGuard) {
        guard let registration = backend.configuration.officeRegistration,
              let store = backend.store as? any AuthorizationStore else { return nil }
        self.init(backend: backend, store: store, registration: registration, policy: backend.configuration.authorizationPolicy, signIn: signIn)
    }

    /// Creates the server with an explicit store, registration and policy.
    public init(backend: WOPIBackend, store: any AuthorizationStore, registration: OfficeRegistration, policy: AuthorizationPolicy = .init()) {
        self.init(backend: backend, store: store, registration: registration, policy: policy, signIn: SignInGuard(policy: policy, store: backend.store))
    }

    private init(backend: WOPIBackend, store: any AuthorizationStore, registration: OfficeRegistration, policy: AuthorizationPolicy,
                 signIn: SignInGuard) {
        self.backend = backend
        self.store = store
        self.registration = registration
        self.policy = policy
        self.clients = OAuthClient.clients(for: registration)
        self.throttle = signIn.throttle
        self.passwords = signIn.passwords
        self.decoyPasswordHash = signIn.decoyPasswordHash
    }

    /// Adds every sign-in route to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("oauth2/authorize") { request, context in
            try await page(request, context) { try await showAuthorization(request, context: context) }
        }
        router.post("oauth2/authorize") { request, context in
            try await page(request, context) { try await submitAuthorization(request, context: context) }
        }
        router.post("oauth2/token") { request, context in try await self.token(request, context: context) }
        router.post("oauth2/app-to-app") { request, context in try await self.appToApp(request, context: context) }
        router.get("wopibootstrapper") { request, context in try await self.bootstrap(request, context: context) }
        router.post("wopibootstrapper") { request, context in try await self.ecosystemOperation(request, context: context) }
    }

    // MARK: URLs

    /// The authorization endpoint Office is told about: `<public URL>/oauth2/authorize`.
    public var authorizationURI: String { "\(backend.configuration.publicURL.absoluteString)/oauth2/authorize" }
    /// The token endpoint: `<public URL>/oauth2/token`.
    public var tokenIssuanceURI: String { "\(backend.configuration.publicURL.absoluteString)/oauth2/token" }
    /// The bootstrapper: `<public URL>/wopibootstrapper`.
    public var bootstrapperURI: String { "\(backend.configuration.publicURL.absoluteString)/wopibootstrapper" }

    /// The 401 challenge of the bootstrapper (Bootstrap.rst, "WWW-Authenticate response header format").
    ///
    /// - Throws: `OfficeURLError.invalidChallenge(_:)` when the public URL holds characters the header cannot carry.
    public func challenge() throws(OfficeURLError) -> BootstrapperChallenge {
        try BootstrapperChallenge(authorizationURI: authorizationURI, tokenIssuanceURI: tokenIssuanceURI, providerID: registration.providerID,
                                  urlSchemes: registration.iOSURLSchemes.isEmpty ? nil : ["iOS": registration.iOSURLSchemes])
    }

    /// The path prefix of the public URL (empty, or `/prefix` behind a proxy), for form actions and cookies.
    var basePath: String {
        var path = backend.configuration.publicURL.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    var now: Date { backend.configuration.now() }

    // MARK: Shared steps

    /// Issues a code (and a session context, for clients that get one) and stores its digest.
    func issueCode(client: OAuthClient, redirectURI: String, redirectURIRequired: Bool, userID: ResourceID, scope: String,
                   codeChallenge: String?) async throws -> (code: String, sessionContext: String?) {
        let code = Base64URL.randomToken()
        let sessionContext = client.issuesSessionContext ? Base64URL.randomToken(byteCount: 16) : nil
        let issuedAt = now
        try await store.storeAuthorizationCode(AuthorizationCodeRecord(
            digest: SecretDigest(of: code), clientID: client.id, redirectURI: redirectURI, redirectURIRequired: redirectURIRequired,
            userID: userID, scope: scope, codeChallenge: codeChallenge, sessionContextDigest: sessionContext.map(SecretDigest.init(of:)),
            grantID: Base64URL.randomToken(byteCount: 16), createdAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(policy.codeLifetime)))
        // Housekeeping on the side: a day's grace keeps expired codes around long enough to recognise their reuse.
        try await store.removeExpiredAuthorizationRecords(before: issuedAt.addingTimeInterval(-86400))
        return (code, sessionContext)
    }

    /// The valid OAuth access token and user behind a request's bearer credential, or why there is none.
    ///
    /// When the token's grant has a session context, `X-WOPI-SessionContext` must repeat it.
    func authenticate(_ request: Request) async throws -> Result<(token: OAuthTokenRecord, user: UserRecord), BearerRefusal> {
        guard let presented = BearerCredential.token(in: request.headers) else { return .failure(.init("missing bearer token")) }
        guard let token = try await store.oauthToken(digest: SecretDigest(of: presented)), token.kind == .access else {
            return .failure(.init("unknown bearer token"))
        }
        guard token.revokedAt == nil else { return .failure(.init("the bearer token was revoked")) }
        guard token.expiresAt > now else { return .failure(.init("the bearer token has expired")) }
        if let expected = token.sessionContextDigest {
            guard let sent = request.headers[.wopiSessionContext], expected.matches(sent) else {
                return .failure(.init("X-WOPI-SessionContext is missing or does not match the sign-in"))
            }
        }
        guard let user = try await backend.store.user(id: token.userID) else { return .failure(.init("the token's user no longer exists")) }
        return .success((token, user))
    }

    /// Why a bearer credential was refused (for logs and `error_description`; never the token itself).
    struct BearerRefusal: Error, Sendable {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The HMAC key of consent tickets, created on first use and shared through the store.
    func consentKey() async throws -> SymmetricKey {
        SymmetricKey(data: try await backend.store.hostSecret(named: ConsentTicket.keyName) {
            Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        })
    }

    /// A request body of at most 64 KiB, as form fields.
    static func formBody(_ request: Request) async throws -> FormFields {
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        return try FormFields(encoded: String(buffer: buffer))
    }

    /// The client address, when the request context knows it (for the sign-in throttle).
    static func address(of context: some RequestContext) -> String? {
        guard let address = (context as? any RemoteAddressRequestContext)?.remoteAddress else { return nil }
        return address.ipAddress ?? address.description
    }
}
