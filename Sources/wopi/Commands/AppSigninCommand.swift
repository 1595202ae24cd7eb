import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import OfficeURLScheme
import WOPICore

/// `wopi app-signin`: what the provider's app does when Office opens it to sign in (apptoapp.rst).
struct AppSigninCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-signin",
        abstract: "Answer Office's app-to-app sign-in request the way the provider's app does.",
        discussion: """
            Takes the URL Office opens the provider's app with, for example:

              contoso:client_id=abcdefg&response_type=code&scope=wopi&rs=enUS&app=word&action=76d1…

            Signs in to the host as the provider's own app (OAuth 2.0 client `wopikit-app`, PKCE S256, redirect URI `<scheme>:/oauth2/callback` on the request's scheme), filling in the sign-in form as a browser would. Then asks POST /oauth2/app-to-app for a code for Office's client_id and prints the answer Office expects: ms-word-tp:code=…&sc=…&action=<same action>.

            On any failure it prints the RFC 6749 error form of that answer instead (ms-word-tp:error=access_denied&error_description=…&action=…), says why in one line on stderr, and exits with 1. A request that cannot be parsed is invalid input: exit 2.
            """
    )

    @Argument(help: ArgumentHelp("The sign-in request URL Office opened the app with.", valueName: "request-url"))
    var request: String
    @Option(help: ArgumentHelp("The WOPI host's public URL (where /oauth2/authorize lives).", valueName: "url"))
    var server: String
    @Option(help: "The user's sign-in name.") var username: String
    @Option(help: "The user's password. Prefer the WOPI_PASSWORD environment variable: arguments show in process lists.")
    var password: String?
    @Option(help: "Seconds to wait for each HTTP request.") var timeout: Int = 30

    func validate() throws {
        let parsed: SignInRequest
        do { parsed = try SignInRequest(string: request) } catch {
            throw ValidationError("the request URL is not an app-to-app sign-in request: \(error)")
        }
        guard parsed.returnScheme != nil else {
            throw ValidationError("the request names no Office app to answer (app=word, excel, powerpoint or officemobile)")
        }
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--server must be an absolute http(s) URL, got '\(server)'")
        }
        guard password != nil || ProcessInfo.processInfo.environment["WOPI_PASSWORD"] != nil else {
            throw ValidationError("give the password with --password or the WOPI_PASSWORD environment variable")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let signIn = try SignInRequest(string: request)
        let password = self.password ?? ProcessInfo.processInfo.environment["WOPI_PASSWORD"] ?? ""
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow // the redirect to <scheme>:/oauth2/callback is read, not followed
        // A refused connection is retried until the connect timeout; keep that short so a dead server fails fast.
        configuration.timeout = .init(connect: .seconds(Int64(min(timeout, 5))), read: .seconds(Int64(timeout)))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let flow = AppSignInFlow(client: client, base: base, signIn: signIn, timeout: .seconds(Int64(timeout)))
        let answer: SignInResponse
        do {
            let result = try await flow.run(username: username, password: password)
            try? await client.shutdown()
            answer = try signIn.response(code: result.code, sessionContext: result.sessionContext)
        } catch let failure as AppSignInFlow.Failure {
            try? await client.shutdown()
            let errorAnswer = try signIn.errorResponse(OAuthAuthorizationError(code: failure.code, description: failure.description))
            print(errorAnswer.string)
            FileHandle.standardError.write(Data("wopi: error: \(failure.description)\n".utf8))
            throw ExitCode(1)
        } catch {
            try? await client.shutdown()
            let description = "cannot reach \(base): \(error)"
            let errorAnswer = try signIn.errorResponse(OAuthAuthorizationError(code: OAuthAuthorizationError.temporarilyUnavailable,
                                                                               description: description))
            print(errorAnswer.string)
            FileHandle.standardError.write(Data("wopi: error: \(description)\n".utf8))
            throw ExitCode(1)
        }
        print(answer.string)
    }
}

/// The HTTP conversation of an app-to-app sign-in: authorize (with PKCE), token, app-to-app.
struct AppSignInFlow: Sendable {
    /// A refusal, as an RFC 6749 §4.1.2.1 error code and a description.
    struct Failure: Error, CustomStringConvertible {
        var code: String
        var description: String
    }

    let client: HTTPClient
    let base: String
    let signIn: SignInRequest
    let timeout: TimeAmount
    static let appClientID = "wopikit-app"

    func run(username: String, password: String) async throws -> (code: String, sessionContext: String?) {
        var cookies = FlowCookies()
        let verifier = Base64URL.randomToken(byteCount: 48)
        let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        let state = Base64URL.randomToken(byteCount: 16)
        let redirectURI = "\(signIn.scheme):/oauth2/callback"
        var query = [("client_id", Self.appClientID), ("redirect_uri", redirectURI), ("response_type", "code"), ("scope", signIn.scope ?? "wopi"),
                     ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256")]
        if let culture = signIn.culture { query.append(("rs", culture)) }

        // 1. The sign-in page.
        var response = try await send("GET", "\(base)/oauth2/authorize?\(Self.encode(query))", cookies: &cookies)
        let location = try await submitPages(response, cookies: &cookies, username: username, password: password)
        // 2. The redirect carries the app's code.
        let appCode = try Self.code(from: location, state: state, redirectURI: redirectURI)
        // 3. The app's session: exchange the code, proving possession of the verifier.
        response = try await send("POST", "\(base)/oauth2/token", form: [("grant_type", "authorization_code"), ("code", appCode),
                                                                         ("redirect_uri", redirectURI), ("client_id", Self.appClientID),
                                                                         ("code_verifier", verifier)], cookies: &cookies)
        let session = try Self.json(response, step: "the token endpoint")
        guard let accessToken = session["access_token"] as? String else {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "the token endpoint answered without access_token")
        }
        // 4. A code for Office.
        var form = [("client_id", signIn.clientID)]
        if let action = signIn.action { form.append(("action", action)) }
        if let scope = signIn.scope { form.append(("scope", scope)) }
        response = try await send("POST", "\(base)/oauth2/app-to-app", form: form, bearer: accessToken, cookies: &cookies)
        let grant = try Self.json(response, step: "/oauth2/app-to-app")
        guard let code = grant["code"] as? String else {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "/oauth2/app-to-app answered without code")
        }
        return (code, grant["sc"] as? String)
    }

    /// Fills in the sign-in form, then the consent form if one follows, until the server redirects.
    private func submitPages(_ first: Response, cookies: inout FlowCookies, username: String, password: String) async throws -> String {
        var response = first
        for _ in 0..<3 {
            if let location = response.location, (300..<400).contains(response.status) { return location }
            let html = response.body
            guard response.status == 200, let form = SignInPageForm(html: html) else {
                if response.status == 429 {
                    throw Failure(code: OAuthAuthorizationError.temporarilyUnavailable, description: "too many sign-in attempts; try again later")
                }
                if html.contains("class=\"error\"") {
                    throw Failure(code: OAuthAuthorizationError.accessDenied, description: "the user name or password is wrong")
                }
                throw Failure(code: OAuthAuthorizationError.invalidRequest,
                              description: "the sign-in page answered \(response.status)\(SignInPageForm.errorText(in: html).map { ": \($0)" } ?? "")")
            }
            var fields = form.hiddenFields
            if form.hasField("password") {
                fields += [("username", username), ("password", password)]
            } else if form.hasField("decision") {
                fields.append(("decision", "allow"))
            } else {
                throw Failure(code: OAuthAuthorizationError.serverError, description: "the sign-in page has neither a password field nor a consent button")
            }
            response = try await send("POST", resolve(form.action), form: fields, cookies: &cookies)
        }
        throw Failure(code: OAuthAuthorizationError.serverError, description: "the sign-in did not end in a redirect")
    }

    /// The code in the redirect, after checking it is for the app's redirect URI and carries our `state`.
    static func code(from location: String, state: String, redirectURI: String) throws -> String {
        guard location.hasPrefix(redirectURI), let components = URLComponents(string: location) else {
            throw Failure(code: OAuthAuthorizationError.serverError, description: "the sign-in redirected somewhere unexpected")
        }
        let items = components.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = value("error") {
            throw Failure(code: error, description: value("error_description") ?? "the sign-in was refused")
        }
        guard value("state") == state else { throw Failure(code: OAuthAuthorizationError.serverError, description: "the redirect's state does not match") }
        guard let code = value("code") else { throw Failure(code: OAuthAuthorizationError.serverError, description: "the redirect has no code") }
        return code
    }

    /// A JSON object from a 200 response, or the server's RFC 6749 error as a failure.
    static func json(_ response: Response, step: String) throws -> [String: Any] {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body.utf8))) as? [String: Any]
        guard response.status == 200, let object else {
            let error = object?["error"] as? String ?? OAuthAuthorizationError.serverError
            let description = object?["error_description"] as? String ?? "\(step) answered \(response.status)"
            throw Failure(code: error == "invalid_client" || error == "invalid_token" ? OAuthAuthorizationError.accessDenied : error,
                          description: description)
        }
        return object
    }

    // MARK: HTTP

    struct Response {
        var status: Int
        var location: String?
        var body: String
    }

    private func resolve(_ action: String) -> String {
        if action.hasPrefix("http://") || action.hasPrefix("https://") { return action }
        guard let url = URL(string: base), let scheme = url.scheme, let host = url.host else { return base + action }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        return action.hasPrefix("/") ? "\(scheme)://\(authority)\(action)" : "\(base)/\(action)"
    }

    private func send(_ method: String, _ url: String, form: [(String, String)]? = nil, bearer: String? = nil,
                      cookies: inout FlowCookies) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = method == "POST" ? .POST : .GET
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.encode(form)))
        }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let cookie = cookies.header { request.headers.add(name: "Cookie", value: cookie) }
        if let culture = signIn.culture { request.headers.add(name: "Accept-Language", value: culture) }
        let response = try await client.execute(request, timeout: timeout)
        cookies.store(response.headers["Set-Cookie"])
        let body = try await response.body.collect(upTo: 1 << 20)
        return Response(status: Int(response.status.code), location: response.headers.first(name: "Location"), body: String(buffer: body))
    }

    static func encode(_ pairs: [(String, String)]) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return pairs.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }
            .joined(separator: "&")
    }
}

/// The cookies a server set during one flow (name=value only; the flow talks to one host).
struct FlowCookies {
    private var values: [(String, String)] = []

    mutating func store(_ headers: [String]) {
        for header in headers {
            guard let pair = header.split(separator: ";").first, let eq = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<eq].trimmingCharacters(in: .whitespaces)
            let value = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            values.removeAll { $0.0 == name }
            values.append((name, value))
        }
    }

    var header: String? { values.isEmpty ? nil : values.map { "\($0.0)=\($0.1)" }.joined(separator: "; ") }
}

/// The one form of a sign-in or consent page: its action, hidden inputs, and which fields it has.
struct SignInPageForm {
    var action: String
    var hiddenFields: [(String, String)] = []
    var fieldNames: Set<String> = []

    func hasField(_ name: String) -> Bool { fieldNames.contains(name) }

    init?(html: String) {
        guard let formTag = Self.tags(named: "form", in: html).first else { return nil }
        action = Self.attribute("action", in: formTag) ?? ""
        for tag in Self.tags(named: "input", in: html) + Self.tags(named: "button", in: html) {
            guard let name = Self.attribute("name", in: tag) else { continue }
            fieldNames.insert(name)
            if Self.attribute("type", in: tag)?.lowercased() == "hidden" {
                hiddenFields.append((name, Self.attribute("value", in: tag) ?? ""))
            }
        }
    }

    /// The text of the first `class="error"` element, for messages.
    static func errorText(in html: String) -> String? {
        guard let start = html.range(of: "class=\"error\""), let close = html[start.upperBound...].firstIndex(of: ">"),
              let end = html[close...].range(of: "</") else { return nil }
        return unescape(String(html[html.index(after: close)..<end.lowerBound]))
    }

    /// The opening tags `<name …>` in `html`.
    static func tags(named name: String, in html: String) -> [String] {
        var result: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<\(name)", options: .caseInsensitive) {
            guard let close = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let next = rest[open.upperBound...].first
            if next == " " || next == ">" || next == "\n" || next == "\t" { result.append(String(rest[open.lowerBound...close])) }
            rest = rest[rest.index(after: close)...]
        }
        return result
    }

    /// The unescaped value of `name="…"` (or `'…'`) in a tag.
    static func attribute(_ name: String, in tag: String) -> String? {
        var rest = tag[...]
        while let range = rest.range(of: "\(name)=", options: .caseInsensitive) {
            let before = range.lowerBound == tag.startIndex ? " " : tag[tag.index(before: range.lowerBound)]
            rest = rest[range.upperBound...]
            guard before == " " || before == "\n" || before == "\t", let quote = rest.first, quote == "\"" || quote == "'" else { continue }
            let valueStart = rest.index(after: rest.startIndex)
            guard let end = rest[valueStart...].firstIndex(of: quote) else { return nil }
            return unescape(String(rest[valueStart..<end]))
        }
        return nil
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
