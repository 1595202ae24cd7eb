import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WOPICore
import WOPIHost

/// The host's side of OpenID Connect sign-in (OpenID Connect Core 1.0 §3.1; RFC 9700 §2.1, §4.5, §4.7):
///
/// - `GET /signin/oidc[?authorize=<OAuth request>]`: sends the browser to the provider with a fresh `state`,
///   a `nonce` and a PKCE S256 challenge, and binds them to the browser with a cookie.
/// - `GET /signin/oidc/callback`: takes the `state` once (``IdentityLinkStore``), checks the browser is the one
///   that started, redeems the code, and continues where the sign-in began: a web-front session, or the
///   OAuth authorization Office asked for.
///
/// Only digests are stored: the cookie holds a random secret, the `nonce` and the PKCE verifier derive from it
/// and the `state`. Every refusal is audited as `signin.refused` with a reason, and creates nothing.
struct OpenIDSignInController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend
    let signIn: OpenIDSignIn
    let store: any WOPIStore & IdentityLinkStore
    /// Where an OAuth authorization continues; `nil` when the host has no Office registration.
    let authorization: AuthorizationServer?

    /// The cookie that binds a sign-in under way to its browser.
    static var cookieName: String { "wopi_oidc" }

    func addRoutes(to router: Router<Context>) {
        router.get("signin/oidc") { request, context in try await guarded(request, context) { try await start(request, context: context) } }
        router.get("signin/oidc/callback") { request, context in
            try await guarded(request, context) { try await callback(request, context: context) }
        }
    }

    /// The provider's callback URL: `<public URL>/signin/oidc/callback`.
    var redirectURI: String { backend.configuration.publicURL.absoluteString + OpenIDSignIn.callbackPath }

    private var basePath: String {
        var path = backend.configuration.publicURL.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    private func guarded(_ request: Request, _ context: Context, _ body: () async throws -> Response) async throws -> Response {
        try await PageFailure.guarding(request, logger: context.logger, language: Self.language(request, authorizeQuery: nil),
                                       brand: backend.configuration.brandName, basePath: basePath, body)
    }

    // MARK: Start

    private func start(_ request: Request, context: Context) async throws -> Response {
        let now = backend.configuration.now()
        var continuation = "web"
        let authorizeQuery = request.uri.queryParameters.get("authorize")
        if let authorizeQuery {
            // Checked now, so a bad request is answered here rather than after a trip to the provider.
            guard let authorization else { return try refusedPage(.badRequest, detail: "this host has no Office sign-in", request: request) }
            guard let fields = try? FormFields(encoded: authorizeQuery), (try? AuthorizationRequest(fields, clients: authorization.clients)) != nil else {
                return try refusedPage(.badRequest, detail: "the authorization request it carries is not valid", request: request)
            }
            continuation = "authorize?" + authorizeQuery
        }
        let language = Self.language(request, authorizeQuery: authorizeQuery)
        let state = Base64URL.randomToken()
        let browserSecret = Base64URL.randomToken()
        try await store.beginOpenIDSignIn(PendingOpenIDSignIn(stateDigest: SecretDigest(of: state), browserDigest: SecretDigest(of: browserSecret),
                                                              continuation: continuation, createdAt: now,
                                                              expiresAt: now.addingTimeInterval(signIn.pendingLifetime)), now: now)
        let outgoing = Self.request(redirectURI: redirectURI, state: state, browserSecret: browserSecret, language: language)
        var headers = HTTPFields()
        headers[.location] = signIn.provider.authorizationURL(for: outgoing)
        headers[.cacheControl] = "no-store"
        headers[.setCookie] = bindingCookie(browserSecret, maxAge: Int(signIn.pendingLifetime)).description
        return Response(status: .found, headers: headers)
    }

    /// The request sent to the provider: the nonce and the verifier are keyed by the browser's secret and
    /// bound to the state, so neither is stored and neither serves another sign-in.
    static func request(redirectURI: String, state: String, browserSecret: String, language: PageLanguage?) -> OpenIDAuthorizationRequest {
        let key = SymmetricKey(data: Data(browserSecret.utf8))
        func derive(_ purpose: String) -> String {
            Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data("\(purpose):\(state)".utf8), using: key)))
        }
        return OpenIDAuthorizationRequest(redirectURI: redirectURI, state: state, nonce: derive("nonce"), codeVerifier: derive("pkce"),
                                          uiLocales: language?.rawValue)
    }

    // MARK: Callback

    private func callback(_ request: Request, context: Context) async throws -> Response {
        let now = backend.configuration.now()
        let query = request.uri.queryParameters
        guard let state = query.get("state"), !state.isEmpty, state.utf8.count <= 512 else {
            return try refuse("state_missing", detail: "the provider's answer has no state", via: nil, request: request, context: context)
        }
        guard let pending = try await store.takeOpenIDSignIn(stateDigest: SecretDigest(of: state), now: now) else {
            return try refuse("state_unknown", detail: "the state is unknown, already used or expired", via: nil, request: request, context: context)
        }
        let via = pending.continuation == "web" ? "web" : "oauth"
        let authorizeQuery = pending.continuation.hasPrefix("authorize?") ? String(pending.continuation.dropFirst("authorize?".count)) : nil
        guard let browserSecret = request.cookies[Self.cookieName]?.value, pending.browserDigest.matches(browserSecret) else {
            return try refuse("browser_mismatch", detail: "the sign-in was started in another browser", via: via, request: request,
                              context: context, authorizeQuery: authorizeQuery)
        }
        if let error = query.get("error") {
            let code = String(error.prefix(40).filter { $0.isASCII && ($0.isLetter || $0 == "_") })
            return try refuse("provider_error", detail: "the provider answered \(code)", via: via, request: request, context: context,
                              authorizeQuery: authorizeQuery, extra: ["error": code])
        }
        guard let code = query.get("code"), !code.isEmpty, code.utf8.count <= 4096 else {
            return try refuse("code_missing", detail: "the provider's answer has no code", via: via, request: request, context: context,
                              authorizeQuery: authorizeQuery)
        }
        let outgoing = Self.request(redirectURI: redirectURI, state: state, browserSecret: browserSecret, language: nil)
        let identity: OpenIDIdentity
        do {
            identity = try await signIn.provider.signIn(code: code, request: outgoing)
        } catch {
            return try refuse(error.reason.rawValue, detail: error.detail, via: via, request: request, context: context,
                              authorizeQuery: authorizeQuery, unavailable: error.reason == .providerUnavailable)
        }
        guard identity.issuer == signIn.provider.issuer else {
            return try refuse(OpenIDSignInError.Reason.wrongIssuer.rawValue, detail: "the identity is from another issuer", via: via,
                              request: request, context: context, authorizeQuery: authorizeQuery)
        }
        let user = try await OpenIDAccounts(store: store, backend: backend).account(for: identity)
        context.logger.info("signed in through the identity provider", metadata: ["user": "\(user.name)", "via": "\(via)"])
        if let authorizeQuery, let authorization {
            var response = try await authorization.continueAuthorization(query: authorizeQuery, user: user, request: request)
            response.headers.append(HTTPField(name: .setCookie, value: bindingCookie("", maxAge: 0).description))
            return response
        }
        backend.audit(.signInOK, user: user.name, details: ["via": "web", "method": "oidc"])
        let (_, secret) = try await backend.startWebSession(for: user, userAgent: request.headers[.userAgent])
        let secure = backend.configuration.publicURL.scheme?.lowercased() == "https"
        var headers = HTTPFields()
        headers[.location] = basePath + "/"
        headers[.cacheControl] = "no-store"
        headers.append(HTTPField(name: .setCookie, value: Cookie(name: WebSession.cookieName, value: secret, maxAge: Int(WebSession.lifetime),
                                                                 path: basePath + "/", secure: secure, httpOnly: true,
                                                                 sameSite: .lax).description))
        headers.append(HTTPField(name: .setCookie, value: bindingCookie("", maxAge: 0).description))
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: Refusals

    /// Audits `signin.refused` with `reason` and answers with a page in the person's language: 503 when the
    /// provider is unavailable, else 400. Clears the binding cookie; changes nothing else.
    private func refuse(_ reason: String, detail: String, via: String?, request: Request, context: Context, authorizeQuery: String? = nil,
                        unavailable: Bool = false, extra: [String: String] = [:]) throws -> Response {
        var details = extra.merging(["reason": reason]) { $1 }
        if let via { details["via"] = via }
        backend.audit(.signInRefused, details: details)
        backend.configuration.monitor.metrics?.recordSignIn(outcome: "refused")
        context.logger.notice("sign-in through the identity provider refused", metadata: ["reason": "\(reason)", "detail": "\(detail)"])
        let language = Self.language(request, authorizeQuery: authorizeQuery)
        let strings = language.strings
        let message = PageText.fill(unavailable ? strings.providerUnavailable : strings.providerRefused, signIn.provider.name)
        var headers = HTTPFields()
        headers[.setCookie] = bindingCookie("", maxAge: 0).description
        if unavailable { headers[.retryAfter] = "60" }
        return try SignInPage(kind: .error(message: message, detail: nil), language: language, brand: backend.configuration.brandName,
                              action: "", hiddenFields: [])
            .response(status: unavailable ? .serviceUnavailable : .badRequest, extraHeaders: headers)
    }

    private func refusedPage(_ message: SignInStrings.Message, detail: String, request: Request) throws -> Response {
        let language = Self.language(request, authorizeQuery: nil)
        return try SignInPage(kind: .error(message: language.strings.text(message), detail: detail), language: language,
                              brand: backend.configuration.brandName, action: "", hiddenFields: []).response(status: .badRequest)
    }

    /// The page's language: Office's `rs` in the carried request, the web front's chosen language, then `Accept-Language`.
    static func language(_ request: Request, authorizeQuery: String?) -> PageLanguage {
        let culture = authorizeQuery.flatMap { try? FormFields(encoded: $0) }?["rs"]
            ?? request.cookies[WebFrontController<Context>.languageCookie]?.value
        return PageLanguage(culture: culture, acceptLanguage: request.headers[.acceptLanguage])
    }

    private func bindingCookie(_ value: String, maxAge: Int) -> Cookie {
        let secure = backend.configuration.publicURL.scheme?.lowercased() == "https"
        return Cookie(name: Self.cookieName, value: value, maxAge: maxAge, path: basePath + "/signin/oidc", secure: secure, httpOnly: true,
                      sameSite: .lax)
    }
}
