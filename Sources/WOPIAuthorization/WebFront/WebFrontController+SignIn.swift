import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WOPICore
import WOPIHost

/// Signing in and out of the web front.
extension WebFrontController {
    /// The sign-in form, with the pre-session CSRF cookie (``SignInFormToken``), set anew unless the
    /// browser has one this host signed with more than ``SignInFormToken/renewal`` left.
    func signInPage(_ request: Request, language: PageLanguage, username: String, error: String?, status: HTTPResponse.Status,
                    cookies: [Cookie] = [], extraHeaders: HTTPFields = [:]) async throws -> Response {
        var cookies = cookies
        let key = try await backend.webFrontKey()
        let now = backend.configuration.now()
        let csrf: String
        if let existing = request.cookies[Self.signInCSRFCookie]?.value,
           let expiry = SignInFormToken.expiry(of: existing, key: key), expiry.timeIntervalSince(now) > SignInFormToken.renewal {
            csrf = existing
        } else {
            csrf = SignInFormToken.issue(key: key, now: now)
            cookies.append(cookie(Self.signInCSRFCookie, value: csrf, maxAge: Int(SignInFormToken.lifetime)))
        }
        let strings = language.strings
        var form = SignInForm(strings: strings, heading: PageText.fill(strings.signInHeading, backend.configuration.brandName),
                              error: error, action: basePath + "/signin", hidden: [HiddenField(name: "csrf", value: csrf)], username: username)
        if let openID = backend.configuration.openIDSignIn {
            form.provider = ProviderButton(label: PageText.fill(strings.signInWithProvider, openID.provider.name),
                                           href: basePath + OpenIDSignIn.startPath)
            form.showsPassword = !openID.passwordFormsHidden
        }
        var headers = extraHeaders
        headers.append(contentsOf: Self.cookieHeaders(cookies))
        return try layout(language, session: nil, user: nil, pagePath: basePath + "/")
            .response("signin", form, title: strings.signInTitle, status: status, extraHeaders: headers)
    }

    /// `POST /signin`: refuses a request another site or origin sent (``RequestOriginRules``), checks
    /// the signed CSRF cookie against the form, then the throttle and the password; on success begins
    /// a session (``WOPIBackend/startWebSession(for:userAgent:)``), sets its cookie and goes to the root folder.
    func signIn(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        let strings = language.strings
        let now = backend.configuration.now()
        if let refusal = backend.originRefusal(request) {
            context.logger.notice("web sign-in refused: it came from another site", metadata: ["reason": "\(refusal)"])
            backend.audit(.signInFailed, details: ["reason": "cross_site", "via": "web"])
            return try await signInPage(request, language: language, username: "", error: language.webFront.formExpired, status: .forbidden)
        }
        let key = try await backend.webFrontKey()
        guard let fields = try? await AuthorizationServer.formBody(request),
              let expected = request.cookies[Self.signInCSRFCookie]?.value, SignInFormToken.isValid(expected, key: key, now: now),
              let sent = fields["csrf"], ConstantTime.equal(expected, sent) else {
            context.logger.debug("web sign-in refused: the form's token is missing, expired, or not this host's")
            return try await signInPage(request, language: language, username: "", error: language.webFront.formExpired, status: .forbidden)
        }
        if backend.configuration.openIDSignIn?.passwordFormsHidden == true {
            backend.audit(.signInFailed, details: ["reason": "passwords_off", "via": "web"])
            return try await signInPage(request, language: language, username: "", error: strings.passwordsOff, status: .forbidden)
        }
        let username = (fields["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = fields["password"] ?? ""
        let throttleKey = SignInThrottle.key(username: username, address: AuthorizationServer.address(of: context))
        if let wait = try await throttle.retryAfter(throttleKey, now: now) {
            backend.audit(.signInFailed, user: String(username.prefix(64)), details: ["reason": "throttled", "via": "web"])
            var headers = HTTPFields()
            headers[.retryAfter] = String(Int(wait.rounded(.up)))
            let minutes = String(max(1, Int((wait / 60).rounded(.up))))
            return try await signInPage(request, language: language, username: username, error: PageText.fill(strings.tooManyAttempts, minutes),
                                        status: .tooManyRequests, extraHeaders: headers)
        }
        // As on the OAuth pages: no lookup for impossible names, and a decoy check so timing tells nothing.
        let user = (1...64).contains(username.count) ? try await backend.store.user(named: username) : nil
        let matches = await passwords.verify(String(password.utf8.prefix(1024)) ?? "", against: user?.passwordHash ?? decoyPasswordHash)
        guard matches, let user else {
            backend.audit(.signInFailed, user: String(username.prefix(64)), details: ["reason": "wrong_credentials", "via": "web"])
            try await throttle.recordFailure(throttleKey, now: now)
            return try await signInPage(request, language: language, username: username, error: strings.wrongCredentials, status: .unauthorized)
        }
        try await throttle.reset(throttleKey)
        backend.audit(.signInOK, user: user.name, details: ["via": "web"])
        let (_, secret) = try await backend.startWebSession(for: user, userAgent: request.headers[.userAgent])
        return seeOther(basePath + "/", cookies: [cookie(WebSession.cookieName, value: secret, maxAge: Int(WebSession.lifetime))])
    }

    /// `POST /signout`: ends the session in the store, so its cookie no longer signs anyone in on any
    /// host, and clears the cookie.
    ///
    /// Only the session's own form does this: a request another site or origin sent, or one without
    /// the session's CSRF token, gets 403 and changes nothing, the cookie included. A request without
    /// a session cookie has nothing to end and goes to the sign-in form, setting no cookie.
    func signOut(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        if let refusal = backend.originRefusal(request) {
            context.logger.notice("web sign-out refused: it came from another site", metadata: ["reason": "\(refusal)"])
            return try messagePage(language.webFront.formExpired, session: nil, user: nil, language: language, status: .forbidden)
        }
        guard let secret = request.cookies[WebSession.cookieName]?.value, WebSession.isWellFormed(secret: secret) else {
            return seeOther(basePath + "/")
        }
        let signedIn = try await backend.webSession(request)
        let fields = try? await AuthorizationServer.formBody(request)
        guard let sent = fields?["csrf"], ConstantTime.equal(WebSession.csrf(secret: secret), sent) else {
            return try messagePage(language.webFront.formExpired, session: signedIn?.0, user: signedIn?.1, language: language, status: .forbidden)
        }
        try await backend.webSessions.endWebSession(digest: SecretDigest(of: secret))
        if let (_, user) = signedIn { backend.audit(.signedOut, user: user.name, details: ["via": "web"]) }
        return seeOther(basePath + "/", cookies: [cookie(WebSession.cookieName, value: "", maxAge: 0)])
    }
}
