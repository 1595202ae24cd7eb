import Foundation
import Hummingbird
import WOPICore
import WOPIHost

/// `/oauth2/authorize` (RFC 6749 §4.1.1–4.1.2): the sign-in page, the consent page, and the 302
/// that ends the flow with `code`, `state` and `sc` (sessioncontext.rst).
extension AuthorizationServer {
    static let csrfCookie = "wopi_csrf"

    /// `body`'s page, or the 503 page when the store fails under it.
    func page(_ request: Request, _ context: some RequestContext, _ body: () async throws -> Response) async throws -> Response {
        let language = PageLanguage(culture: request.uri.queryParameters.get("rs"), acceptLanguage: request.headers[.acceptLanguage])
        return try await PageFailure.guarding(request, logger: context.logger, language: language, brand: backend.configuration.brandName,
                                              basePath: basePath, body)
    }

    /// `GET`: validates the request and shows the sign-in page.
    func showAuthorization(_ request: Request, context: some RequestContext) async throws -> Response {
        let acceptLanguage = request.headers[.acceptLanguage]
        let fields: FormFields
        do { fields = try FormFields(encoded: request.uri.query) } catch {
            let language = PageLanguage(culture: Self.rawQueryValue(request, "rs"), acceptLanguage: acceptLanguage)
            return try errorPage(.badRequest, detail: Self.describe(error), language: language)
        }
        let language = PageLanguage(culture: fields["rs"], acceptLanguage: acceptLanguage)
        let authorization: AuthorizationRequest
        do { authorization = try AuthorizationRequest(fields, clients: clients) } catch {
            return try refusal(error, fields: fields, language: language)
        }
        let (csrf, cookie) = csrfToken(request)
        return try signInPage(authorization, language: language, csrf: csrf, username: "", error: nil, status: .ok, cookie: cookie)
    }

    /// `POST`: the sign-in form (`step=signin`) or the consent form (`step=consent`).
    func submitAuthorization(_ request: Request, context: some RequestContext) async throws -> Response {
        let acceptLanguage = request.headers[.acceptLanguage]
        let fields: FormFields
        do { fields = try await Self.formBody(request) } catch let problem as FormFields.Problem {
            return try errorPage(.badRequest, detail: Self.describe(problem), language: PageLanguage(culture: nil, acceptLanguage: acceptLanguage))
        }
        let language = PageLanguage(culture: fields["rs"], acceptLanguage: acceptLanguage)
        // CSRF: the form's token must equal the cookie set with the page (double-submit).
        guard let cookie = request.cookies[Self.csrfCookie]?.value, let sent = fields["csrf"], !cookie.isEmpty,
              ConstantTime.equal(cookie, sent) else {
            return try errorPage(.formExpired, detail: nil, language: language)
        }
        let authorization: AuthorizationRequest
        do { authorization = try AuthorizationRequest(fields, clients: clients) } catch {
            return try refusal(error, fields: fields, language: language)
        }
        switch fields["step"] {
        case "signin"? where backend.configuration.openIDSignIn?.passwordFormsHidden == true:
            backend.audit(.signInFailed, details: ["reason": "passwords_off"])
            return try signInPage(authorization, language: language, csrf: cookie, username: "", error: language.strings.passwordsOff,
                                  status: .forbidden)
        case "signin"?:
            return try await signIn(authorization, fields: fields, csrf: cookie, language: language, address: Self.address(of: context))
        case "consent"?:
            return try await consent(authorization, fields: fields, csrf: cookie, language: language)
        default:
            return try errorPage(.badRequest, detail: "step must be signin or consent.", language: language)
        }
    }

    // MARK: Steps

    private func signIn(_ authorization: AuthorizationRequest, fields: FormFields, csrf: String, language: PageLanguage,
                        address: String?) async throws -> Response {
        let username = (fields["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = fields["password"] ?? ""
        let strings = language.strings
        let key = SignInThrottle.key(username: username, address: address)
        if let wait = try await throttle.retryAfter(key, now: now) {
            backend.configuration.monitor.metrics?.recordSignIn(outcome: "throttled")
            backend.audit(.signInFailed, user: String(username.prefix(64)), details: ["reason": "throttled"])
            var headers = HTTPFields()
            headers[.retryAfter] = String(Int(wait.rounded(.up)))
            let minutes = String(max(1, Int((wait / 60).rounded(.up))))
            return try signInPage(authorization, language: language, csrf: csrf, username: username,
                                  error: PageText.fill(strings.tooManyAttempts, minutes), status: .tooManyRequests, extra: headers)
        }
        // No account has an empty or over-long name (`wopi users add` allows 1 to 64 characters): skip the lookup.
        let user = (1...64).contains(username.count) ? try await backend.store.user(named: username) : nil
        // Verify even for an unknown name, so timing does not tell which names exist; scrypt never sees more than 1 KiB.
        let matches = await passwords.verify(String(password.utf8.prefix(1024)) ?? "", against: user?.passwordHash ?? decoyPasswordHash)
        let verified = matches && user != nil
        guard verified, let user else {
            backend.configuration.monitor.metrics?.recordSignIn(outcome: "failed")
            backend.audit(.signInFailed, user: String(username.prefix(64)), details: ["reason": "wrong_credentials"])
            try await throttle.recordFailure(key, now: now)
            return try signInPage(authorization, language: language, csrf: csrf, username: username, error: strings.wrongCredentials,
                              status: .unauthorized)
        }
        try await throttle.reset(key)
        backend.configuration.monitor.metrics?.recordSignIn(outcome: "ok")
        backend.audit(.signInOK, user: user.name, details: ["client": authorization.client.id])
        return try await signedIn(authorization, user: user, csrf: csrf, language: language)
    }

    /// The step after a person is known: the code for the provider's own app, else the consent page.
    private func signedIn(_ authorization: AuthorizationRequest, user: UserRecord, csrf: String, language: PageLanguage,
                          extraHeaders: HTTPFields = [:]) async throws -> Response {
        if authorization.client.isFirstParty {
            return try await approve(authorization, userID: user.id)
        }
        let ticket = ConsentTicket(userID: user.id.rawValue, expiresAt: now.addingTimeInterval(policy.consentLifetime),
                                   fingerprint: authorization.fingerprint.hex, csrfDigest: SecretDigest(of: csrf).hex)
        let page = SignInPage(kind: .consent(client: authorization.client.displayName, user: user.displayName), language: language,
                              brand: backend.configuration.brandName, action: basePath + "/oauth2/authorize",
                              hiddenFields: authorization.carriedFields + [("csrf", csrf), ("ticket", ticket.sealed(with: try await consentKey()))])
        return try page.response(extraHeaders: extraHeaders)
    }

    /// Continues the authorization request `query` (the one the page's "Sign in with …" carried to the
    /// provider) for `user`, whom the provider has just vouched for: as after a right password.
    func continueAuthorization(query: String, user: UserRecord, request: Request) async throws -> Response {
        let fields = try FormFields(encoded: query)
        let language = PageLanguage(culture: fields["rs"], acceptLanguage: request.headers[.acceptLanguage])
        let authorization: AuthorizationRequest
        do { authorization = try AuthorizationRequest(fields, clients: clients) } catch {
            return try refusal(error, fields: fields, language: language)
        }
        backend.configuration.monitor.metrics?.recordSignIn(outcome: "ok")
        backend.audit(.signInOK, user: user.name, details: ["client": authorization.client.id, "via": "oidc"])
        // The consent form posts to /oauth2/authorize, whose CSRF cookie this browser may not have sent here.
        let (csrf, cookie) = csrfToken(request)
        var headers = HTTPFields()
        if let cookie { headers[.setCookie] = cookie.description }
        return try await signedIn(authorization, user: user, csrf: csrf, language: language, extraHeaders: headers)
    }

    private func consent(_ authorization: AuthorizationRequest, fields: FormFields, csrf: String, language: PageLanguage) async throws -> Response {
        guard let sealed = fields["ticket"], let ticket = ConsentTicket(sealed: sealed, key: try await consentKey(), now: now),
              ticket.fingerprint == authorization.fingerprint.hex, SecretDigest(of: csrf).hex == ticket.csrfDigest,
              let userID = ResourceID(ticket.userID), try await backend.store.user(id: userID) != nil else {
            return try errorPage(.formExpired, detail: nil, language: language)
        }
        switch fields["decision"] {
        case "allow"?:
            return try await approve(authorization, userID: userID)
        case "deny"?:
            return Self.redirect(to: authorization.errorRedirect("access_denied", "the user denied access"))
        default:
            return try errorPage(.badRequest, detail: "decision must be allow or deny.", language: language)
        }
    }

    /// Issues the code and ends the flow: `302 Location: <redirect_uri>?code=…&state=…&sc=…`.
    private func approve(_ authorization: AuthorizationRequest, userID: ResourceID) async throws -> Response {
        let (code, sessionContext) = try await issueCode(client: authorization.client, redirectURI: authorization.redirectURI,
                                                         redirectURIRequired: authorization.redirectURIGiven, userID: userID,
                                                         scope: authorization.scope, codeChallenge: authorization.codeChallenge)
        return Self.redirect(to: RedirectURI.appending([("code", code), ("state", authorization.state), ("sc", sessionContext)],
                                                       to: authorization.redirectURI))
    }

    // MARK: Pages and responses

    private func signInPage(_ authorization: AuthorizationRequest, language: PageLanguage, csrf: String, username: String, error: String?,
                            status: HTTPResponse.Status, cookie: Cookie? = nil, extra: HTTPFields = [:]) throws -> Response {
        var headers = extra
        if let cookie { headers[.setCookie] = cookie.description }
        var page = SignInPage(kind: .signIn(username: username, error: error), language: language, brand: backend.configuration.brandName,
                              action: basePath + "/oauth2/authorize", hiddenFields: authorization.carriedFields + [("csrf", csrf)])
        if let openID = backend.configuration.openIDSignIn {
            let start = basePath + OpenIDSignIn.startPath + "?authorize=" + FormFields.encode(FormFields(authorization.carriedFields).encoded)
            page.provider = ProviderButton(label: PageText.fill(language.strings.signInWithProvider, openID.provider.name), href: start)
            page.showsPassword = !openID.passwordFormsHidden
        }
        return try page.response(status: status, extraHeaders: headers)
    }

    func errorPage(_ message: SignInStrings.Message, detail: String?, language: PageLanguage) throws -> Response {
        try SignInPage(kind: .error(message: language.strings.text(message), detail: detail), language: language,
                   brand: backend.configuration.brandName, action: "", hiddenFields: [])
            .response(status: .badRequest)
    }

    func refusal(_ refusal: AuthorizationRequest.Refusal, fields: FormFields, language: PageLanguage) throws -> Response {
        switch refusal {
        case .page(let message, let detail):
            return try errorPage(message, detail: detail, language: language)
        case .redirect(let error, let description):
            // Only reached once client and redirect URI are trusted; rebuild just enough to address the answer.
            guard let clientID = fields["client_id"], let client = clients.first(where: { $0.id == clientID }) else {
                return try errorPage(.badRequest, detail: description, language: language)
            }
            let target = fields.nonEmpty("redirect_uri").flatMap(client.registeredRedirect(matching:)) ?? client.redirectURIs.first ?? ""
            return Self.redirect(to: RedirectURI.appending([("error", error), ("error_description", description), ("state", fields["state"])],
                                                           to: target))
        }
    }

    static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    /// The CSRF token of this browser: its cookie's value when it has a well-formed one, else a new one to set.
    func csrfToken(_ request: Request) -> (token: String, setCookie: Cookie?) {
        if let existing = request.cookies[Self.csrfCookie]?.value, existing.utf8.count == 43, Base64URL.decode(existing) != nil {
            return (existing, nil)
        }
        let token = Base64URL.randomToken()
        let secure = backend.configuration.publicURL.scheme?.lowercased() == "https"
        return (token, Cookie(name: Self.csrfCookie, value: token, path: "\(basePath)/oauth2", secure: secure, httpOnly: true, sameSite: .lax))
    }

    /// `rs` straight from the query, for choosing the language of a page about a malformed query.
    private static func rawQueryValue(_ request: Request, _ name: String) -> String? {
        (request.uri.query ?? "").split(separator: "&").lazy.compactMap { item -> String? in
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == name else { return nil }
            return String(parts[1]).removingPercentEncoding
        }.first
    }

    static func describe(_ problem: FormFields.Problem) -> String {
        switch problem {
        case .duplicate(let name): "The parameter \(name) appears more than once."
        case .malformed(let name): "The parameter \(name) is not valid percent-encoded UTF-8."
        }
    }
}
