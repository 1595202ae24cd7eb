import Foundation
import OfficeURLScheme
import WOPICore
import WOPIHTTPClient

/// Office's web-view sign-in (RFC 6749 §4.1.1–§4.1.2, oauthparams.rst): open the authorization
/// page, fill in the sign-in form as a person would, accept the consent page, and read — never
/// follow — the final 302 to `redirect_uri`.
struct WebSignIn: Sendable {
    let transport: any HTTPTransport
    let registration: OfficeClientRegistration
    let credentials: SimulationOptions.WebCredentials

    /// The most pages and redirects followed before giving up on a looping flow.
    static let maximumHops = 12
    private static let step = SimulationStep.Name.webSignIn

    func run(_ challenge: BootstrapperChallenge) async throws(SimulationFailure) -> (SignInGrant, String) {
        let state = Base64URL.randomToken(byteCount: 16)
        guard let authorize = URL(string: challenge.authorizationURI),
              let start = FormEncoding.appending([
                  ("client_id", registration.clientID), ("redirect_uri", registration.redirectURI), ("response_type", "code"),
                  ("scope", registration.scope), ("rs", registration.culture), ("build", registration.build),
                  ("platform", "iOS"), ("state", state),
              ], to: authorize)
        else { throw SimulationFailure(step: Self.step, reason: "authorization_uri '\(challenge.authorizationURI)' is not a URL") }

        var cookies = CookieJar()
        var request = SimulatorRequest(method: "GET", url: start)
        var typedCredentials = false
        var consented = false
        for _ in 0..<Self.maximumHops {
            if let cookie = cookies.header(for: request.url) { request.headers.append(cookie) }
            request.headers.append(SimulatorHeader("Accept-Language", registration.culture))
            request.headers.append(SimulatorHeader("Accept", "text/html"))
            let response = try await send(request)
            cookies.store(response, from: request.url)

            if (300..<400).contains(response.status) {
                guard let location = response.header("Location"),
                      let target = URL(string: location, relativeTo: request.url)?.absoluteURL
                else { throw SimulationFailure(step: Self.step, reason: "a redirect without a usable Location", response: response) }
                if Self.isRedirectURI(target, registration.redirectURI) {
                    let grant = try Self.grant(from: target, state: state, redirectURI: registration.redirectURI, response: response)
                    var detail = "signed in as '\(credentials.username)'"
                    detail += consented ? ", consent given" : ""
                    detail += "; code received, state returned unchanged"
                    if grant.tokenEndpoint != nil { detail += ", tk given" }
                    if grant.sessionContext != nil { detail += ", sc given" }
                    return (grant, detail)
                }
                request = SimulatorRequest(method: "GET", url: target)
                continue
            }

            let html = response.text
            let form: HTMLForm
            do {
                form = try HTMLForm(html: html, pageURL: request.url)
            } catch {
                let reason = response.status == 200 ? "the page cannot be filled in: \(error)" : "the authorization endpoint refused the request"
                throw SimulationFailure(step: Self.step, reason: reason, response: response)
            }
            if let password = form.passwordField {
                if typedCredentials {
                    let message = HTMLForm.errorMessage(in: html).map { ": \($0)" } ?? ""
                    throw SimulationFailure(step: Self.step, reason: "the sign-in page came back after the credentials were sent\(message)", response: response)
                }
                guard let user = form.usernameField, let userName = user.name, let passwordName = password.name else {
                    throw SimulationFailure(step: Self.step, reason: "the sign-in form has no named user-name and password fields", response: response)
                }
                do {
                    request = try form.submission(filling: [userName: credentials.username, passwordName: credentials.password])
                } catch {
                    throw SimulationFailure(step: Self.step, reason: "\(error)", response: response)
                }
                typedCredentials = true
                continue
            }
            guard (200..<300).contains(response.status) else {
                throw SimulationFailure(step: Self.step, reason: "the authorization endpoint answered with an error page", response: response)
            }
            if let allow = form.button(named: "decision", value: "allow") {
                do { request = try form.submission(filling: [:], pressing: allow) } catch {
                    throw SimulationFailure(step: Self.step, reason: "\(error)", response: response)
                }
                consented = true
                continue
            }
            throw SimulationFailure(step: Self.step,
                                    reason: "the page's form has neither a password field nor a decision=allow button, so a person could not go on",
                                    response: response)
        }
        throw SimulationFailure(step: Self.step, reason: "no redirect to \(registration.redirectURI) after \(Self.maximumHops) pages")
    }

    private func send(_ request: SimulatorRequest) async throws(SimulationFailure) -> SimulatorResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw SimulationFailure(step: Self.step, reason: "no answer from \(request.url.absoluteString): \(error)")
        }
    }

    /// Whether `url` is the registered redirect URI (same scheme, host, port and path; `""` and `/` alike).
    static func isRedirectURI(_ url: URL, _ redirectURI: String) -> Bool {
        guard let expected = URLComponents(string: redirectURI), let actual = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return false
        }
        func path(_ components: URLComponents) -> String { components.path.isEmpty ? "/" : components.path }
        return expected.scheme?.lowercased() == actual.scheme?.lowercased()
            && expected.host?.lowercased() == actual.host?.lowercased()
            && expected.port == actual.port
            && path(expected) == path(actual)
    }

    /// Reads the redirect's query: the error parameters (RFC 6749 §4.1.2.1), or `code` with the same `state`.
    static func grant(from url: URL, state: String, redirectURI: String, response: SimulatorResponse) throws(SimulationFailure) -> SignInGrant {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery ?? ""
        let pairs = FormEncoding.decode(query)
        func value(_ name: String) -> String? { pairs.first { $0.name.lowercased() == name }?.value }
        if let error = value("error") {
            let description = value("error_description").map { " (\($0))" } ?? ""
            throw SimulationFailure(step: step, reason: "the provider ended the sign-in with error '\(error)'\(description)", response: response)
        }
        guard let returned = value("state") else {
            throw SimulationFailure(step: step, reason: "the redirect does not return state (RFC 6749 §4.1.2 requires it)", response: response)
        }
        guard returned == state else {
            throw SimulationFailure(step: step, reason: "the redirect returns state '\(returned.prefix(80))', not the one Office sent", response: response)
        }
        guard let code = value("code"), !code.isEmpty else {
            throw SimulationFailure(step: step, reason: "the redirect carries no code", response: response)
        }
        return SignInGrant(code: code, tokenEndpoint: value("tk"), sessionContext: value("sc"), redirectURI: redirectURI)
    }
}
