import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OfficeURLScheme
import WOPICore
import WOPIHTTPClient

/// What the provider's own iOS app does when Office opens it with an app-to-app sign-in request
/// (docs/native/src/identity/apptoapp.rst): sign in to the host as the app's first-party OAuth
/// client (authorization code with PKCE S256, RFC 7636), ask `POST /oauth2/app-to-app` for a code
/// bound to Office's client, and build the `ms-*-tp:` answer — or, where the host signs people in
/// through the app's identity provider, exchange the app's token from that provider for the code.
///
/// The sign-in pages are filled in as a person would, with the same ``HTMLForm`` the Office
/// simulator uses, and the final redirect to the app's `<scheme>:/oauth2/callback` is read, never followed.
public struct ProviderAppSignIn: Sendable {
    /// A refusal as an RFC 6749 §4.1.2.1 error code and a description, for the error form of the answer.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The RFC 6749 error code (`access_denied`, `temporarily_unavailable`, …).
        public var code: String
        /// What went wrong, for people.
        public var description: String

        /// Creates a failure.
        public init(code: String, description: String) {
            self.code = code
            self.description = description
        }
    }

    /// The first-party client id the host registers for the provider's app.
    public static let appClientID = "wopikit-app"
    /// The most pages and redirects followed before giving up on a looping flow.
    static let maximumHops = 8

    private let transport: any HTTPTransport
    private let server: URL

    /// A sign-in against the host at `server` (its public URL, where `/oauth2/authorize` lives).
    public init(transport: any HTTPTransport, server: URL) {
        self.transport = transport
        self.server = server
    }

    /// Signs `username` in and returns the answer to Office's `request`.
    public func answer(_ request: SignInRequest, username: String, password: String) async throws(Failure) -> SignInResponse {
        let verifier = Base64URL.randomToken(byteCount: 48)
        let redirectURI = "\(request.scheme):/oauth2/callback"
        let appCode = try await authorize(request, redirectURI: redirectURI, verifier: verifier, username: username, password: password)
        let session = try await json(post("oauth2/token", [
            ("grant_type", "authorization_code"), ("code", appCode), ("redirect_uri", redirectURI),
            ("client_id", Self.appClientID), ("code_verifier", verifier),
        ]), step: "the token endpoint")
        guard let accessToken = session["access_token"] as? String else {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "the token endpoint answered without access_token")
        }
        var form = [("client_id", request.clientID)]
        if let action = request.action { form.append(("action", action)) }
        if let scope = request.scope { form.append(("scope", scope)) }
        let grant = try await json(post("oauth2/app-to-app", form, bearer: accessToken), step: "/oauth2/app-to-app")
        guard let code = grant["code"] as? String else {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "/oauth2/app-to-app answered without code")
        }
        do {
            return try request.response(code: code, sessionContext: grant["sc"] as? String)
        } catch {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "cannot build the answer: \(error)")
        }
    }

    /// Answers Office's `request` with the token the app's identity provider issued to it (an id_token, or a JWT access
    /// token): one token exchange at the host's token endpoint (RFC 8693), built by `OfficeURLScheme`'s
    /// `IdentityTokenExchange` as a provider's iOS app builds it, and no password.
    public func answer(_ request: SignInRequest, identityToken: String,
                       tokenType: IdentityTokenExchange.SubjectTokenType = .idToken) async throws(Failure) -> SignInResponse {
        let exchange: IdentityTokenExchange
        do { exchange = try IdentityTokenExchange(server: server, clientID: Self.appClientID) } catch {
            throw Failure(code: OAuthAuthorizationError.invalidRequest, description: error.description)
        }
        let built = exchange.request(for: request, subjectToken: identityToken, subjectTokenType: tokenType)
        let response = try await send(SimulatorRequest(method: "POST", url: built.url ?? endpoint("oauth2/token"),
                                                       headers: [SimulatorHeader("Content-Type", "application/x-www-form-urlencoded")],
                                                       body: built.httpBody ?? Data()))
        do {
            return try exchange.answer(to: request, exchangeResponse: response.body)
        } catch {
            // A token the host refused is, for Office, a refused sign-in.
            if case .refused(let code, let description) = error {
                throw Failure(code: code == "invalid_grant" || code == "invalid_client" ? OAuthAuthorizationError.accessDenied : code,
                              description: description ?? "the token endpoint refused the exchange")
            }
            throw Failure(code: OAuthAuthorizationError.serverError, description: "the token endpoint answered \(response.status): \(error)")
        }
    }

    /// The authorization-code flow up to the app's code: sign-in page, consent if shown, redirect.
    private func authorize(_ request: SignInRequest, redirectURI: String, verifier: String,
                           username: String, password: String) async throws(Failure) -> String {
        let state = Base64URL.randomToken(byteCount: 16)
        var query = [("client_id", Self.appClientID), ("redirect_uri", redirectURI), ("response_type", "code"),
                     ("scope", request.scope ?? "wopi"), ("state", state),
                     ("code_challenge", Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))), ("code_challenge_method", "S256")]
        if let culture = request.culture { query.append(("rs", culture)) }
        guard let start = FormEncoding.appending(query.map { (name: $0.0, value: $0.1) }, to: endpoint("oauth2/authorize")) else {
            throw Failure(code: OAuthAuthorizationError.invalidRequest, description: "the server URL \(server) cannot take a query")
        }
        var cookies = CookieJar()
        var next = SimulatorRequest(method: "GET", url: start)
        var typedCredentials = false
        for _ in 0..<Self.maximumHops {
            if let cookie = cookies.header(for: next.url) { next.headers.append(cookie) }
            if let culture = request.culture { next.headers.append(SimulatorHeader("Accept-Language", culture)) }
            let response = try await send(next)
            cookies.store(response, from: next.url)
            if (300..<400).contains(response.status) {
                guard let location = response.header("Location") else {
                    throw Failure(code: OAuthAuthorizationError.serverError, description: "a redirect without Location")
                }
                if location.hasPrefix(redirectURI) { return try Self.code(in: location, state: state) }
                guard let target = URL(string: location, relativeTo: next.url)?.absoluteURL else {
                    throw Failure(code: OAuthAuthorizationError.serverError, description: "the sign-in redirected somewhere unexpected")
                }
                next = SimulatorRequest(method: "GET", url: target)
                continue
            }
            if response.status == 429 {
                throw Failure(code: OAuthAuthorizationError.temporarilyUnavailable, description: "too many sign-in attempts; try again later")
            }
            let message = HTMLForm.errorMessage(in: response.text)
            guard let form = try? HTMLForm(html: response.text, pageURL: next.url) else {
                throw Failure(code: OAuthAuthorizationError.invalidRequest,
                              description: "the sign-in page answered \(response.status)\(message.map { ": \($0)" } ?? "")")
            }
            if let passwordField = form.passwordField {
                guard !typedCredentials else {
                    throw Failure(code: OAuthAuthorizationError.accessDenied, description: "the user name or password is wrong")
                }
                guard let passwordName = passwordField.name, let userName = form.usernameField?.name,
                      let submission = try? form.submission(filling: [userName: username, passwordName: password])
                else { throw Failure(code: OAuthAuthorizationError.serverError, description: "the sign-in form has no user name and password fields") }
                next = submission
                typedCredentials = true
            } else if let allow = form.button(named: "decision", value: "allow"), let submission = try? form.submission(filling: [:], pressing: allow) {
                next = submission
            } else {
                throw Failure(code: OAuthAuthorizationError.invalidRequest,
                              description: "the sign-in page answered \(response.status)\(message.map { ": \($0)" } ?? "")")
            }
        }
        throw Failure(code: OAuthAuthorizationError.serverError, description: "the sign-in did not end in a redirect")
    }

    /// The code in the redirect to the app, after checking `state`; the provider's error when it refused.
    static func code(in location: String, state: String) throws(Failure) -> String {
        let query = location.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let pairs = FormEncoding.decode(query)
        func value(_ name: String) -> String? { pairs.first { $0.name == name }?.value }
        if let error = value("error") { throw Failure(code: error, description: value("error_description") ?? "the sign-in was refused") }
        guard value("state") == state else {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "the redirect's state does not match")
        }
        guard let code = value("code") else { throw Failure(code: OAuthAuthorizationError.serverError, description: "the redirect has no code") }
        return code
    }

    // MARK: HTTP

    private func endpoint(_ path: String) -> URL { server.appendingPathComponent(path) }

    private func post(_ path: String, _ form: [(String, String)], bearer: String? = nil) async throws(Failure) -> SimulatorResponse {
        var headers = [SimulatorHeader("Content-Type", "application/x-www-form-urlencoded")]
        if let bearer { headers.append(SimulatorHeader("Authorization", "Bearer \(bearer)")) }
        let body = Data(FormEncoding.encode(form.map { (name: $0.0, value: $0.1) }).utf8)
        return try await send(SimulatorRequest(method: "POST", url: endpoint(path), headers: headers, body: body))
    }

    private func send(_ request: SimulatorRequest) async throws(Failure) -> SimulatorResponse {
        do { return try await transport.send(request) } catch {
            throw Failure(code: OAuthAuthorizationError.temporarilyUnavailable, description: "cannot reach \(server.absoluteString): \(error)")
        }
    }

    /// A JSON object from a 200 answer, or the server's RFC 6749 error as a failure.
    private func json(_ response: SimulatorResponse, step: String) throws(Failure) -> [String: Any] {
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        guard response.status == 200, let object else {
            let error = object?["error"] as? String ?? OAuthAuthorizationError.serverError
            let description = object?["error_description"] as? String ?? "\(step) answered \(response.status)"
            // The app's own credentials failing is, for Office, a refused sign-in.
            throw Failure(code: error == "invalid_client" || error == "invalid_token" ? OAuthAuthorizationError.accessDenied : error,
                          description: description)
        }
        return object
    }
}
