import Foundation
import HTTPTypes
import Hummingbird
import WOPICore

/// Signing in and out of the web front.
extension WebFrontController {
    /// The sign-in form, with the pre-session CSRF cookie (set when the browser has none yet).
    func signInPage(_ request: Request, language: PageLanguage, username: String, error: String?, status: HTTPResponse.Status,
                    cookies: [Cookie] = [], extraHeaders: HTTPFields = [:]) throws -> Response {
        var cookies = cookies
        let csrf: String
        if let existing = request.cookies[Self.signInCSRFCookie]?.value, existing.utf8.count == 43, Base64URL.decode(existing) != nil {
            csrf = existing
        } else {
            csrf = Base64URL.randomToken()
            cookies.append(cookie(Self.signInCSRFCookie, value: csrf))
        }
        let strings = language.strings
        let form = SignInForm(strings: strings, heading: PageText.fill(strings.signInHeading, backend.configuration.brandName),
                              error: error, action: basePath + "/signin", hidden: [HiddenField(name: "csrf", value: csrf)], username: username)
        var headers = extraHeaders
        headers.append(contentsOf: Self.cookieHeaders(cookies))
        return try layout(language, session: nil, user: nil, pagePath: basePath + "/")
            .response("signin", form, title: strings.signInTitle, status: status, extraHeaders: headers)
    }

    /// `POST /signin`: checks the CSRF cookie, the throttle and the password; on success sets the
    /// session cookie and goes to the root folder.
    func signIn(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        let strings = language.strings
        guard let fields = try? await AuthorizationServer.formBody(request),
              let expected = request.cookies[Self.signInCSRFCookie]?.value, !expected.isEmpty,
              let sent = fields["csrf"], ConstantTime.equal(expected, sent) else {
            return try signInPage(request, language: language, username: "", error: strings.formExpired, status: .forbidden)
        }
        let username = (fields["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = fields["password"] ?? ""
        let now = backend.configuration.now()
        let key = SignInThrottle.key(username: username, address: AuthorizationServer.address(of: context))
        if let wait = try await throttle.retryAfter(key, now: now) {
            backend.audit(.signInFailed, user: String(username.prefix(64)), details: ["reason": "throttled", "via": "web"])
            var headers = HTTPFields()
            headers[.retryAfter] = String(Int(wait.rounded(.up)))
            let minutes = String(max(1, Int((wait / 60).rounded(.up))))
            return try signInPage(request, language: language, username: username, error: PageText.fill(strings.tooManyAttempts, minutes),
                              status: .tooManyRequests, extraHeaders: headers)
        }
        // As on the OAuth pages: no lookup for impossible names, and a decoy check so timing tells nothing.
        let user = (1...64).contains(username.count) ? try await backend.store.user(named: username) : nil
        let matches = await passwords.verify(String(password.utf8.prefix(1024)) ?? "", against: user?.passwordHash ?? decoyPasswordHash)
        guard matches, let user else {
            backend.audit(.signInFailed, user: String(username.prefix(64)), details: ["reason": "wrong_credentials", "via": "web"])
            try await throttle.recordFailure(key, now: now)
            return try signInPage(request, language: language, username: username, error: strings.wrongCredentials, status: .unauthorized)
        }
        try await throttle.reset(key)
        backend.audit(.signInOK, user: user.name, details: ["via": "web"])
        let session = WebSession(userID: user.id, now: now)
        let sessionCookie = cookie(WebSession.cookieName, value: session.sealed(with: try await backend.webSessionKey()), maxAge: Int(WebSession.lifetime))
        return seeOther(basePath + "/", cookies: [sessionCookie])
    }

    /// `POST /signout`: forgets the session cookie (after checking the form's CSRF token) and shows the sign-in form.
    func signOut(_ request: Request, context: Context) async throws -> Response {
        let clear = cookie(WebSession.cookieName, value: "", maxAge: 0)
        guard let (session, _) = try await backend.webSession(request) else { return seeOther(basePath + "/", cookies: [clear]) }
        let fields = try? await AuthorizationServer.formBody(request)
        guard session.accepts(csrf: fields?["csrf"]) else {
            let (language, _) = Self.language(request)
            return try messagePage(language.webFront.formExpired, session: nil, user: nil, language: language, status: .forbidden)
        }
        return seeOther(basePath + "/", cookies: [clear])
    }
}
