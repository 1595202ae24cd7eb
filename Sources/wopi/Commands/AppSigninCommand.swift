import ArgumentParser
import Foundation
import OfficeSimulator
import OfficeURLScheme
import WOPIHTTPClient

/// `wopi app-signin`: what the provider's app does when Office opens it to sign in (apptoapp.rst).
struct AppSigninCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-signin",
        abstract: "Answer Office's app-to-app sign-in request the way the provider's app does.",
        discussion: """
            Takes the URL Office opens the provider's app with, for example:

              contoso:client_id=abcdefg&response_type=code&scope=wopi&rs=enUS&app=word&action=76d1…

            Signs in to the host as the provider's own app (OAuth 2.0 client `wopikit-app`, PKCE S256, redirect URI `<scheme>:/oauth2/callback` on the request's scheme), filling in the sign-in form as a browser would. Then asks POST /oauth2/app-to-app for a code for Office's client_id and prints the answer Office expects: ms-word-tp:code=…&sc=…&action=<same action>.

            With --identity-token-file instead of a user name and password, the host signs people in through its identity provider (wopi serve --oidc-app-client-id): the file holds the id_token (or JWT access token) that provider issued to the app, and the app exchanges it at POST /oauth2/token (OAuth 2.0 Token Exchange, RFC 8693) for Office's code. No password is typed.

            On any failure it prints the RFC 6749 error form of that answer instead (ms-word-tp:error=access_denied&error_description=…&action=…), says why in one line on stderr, and exits with 1. A request that cannot be parsed is invalid input: exit 2.
            """
    )

    @Argument(help: ArgumentHelp("The sign-in request URL Office opened the app with.", valueName: "request-url"))
    var request: String
    @Option(help: ArgumentHelp("The WOPI host's public URL (where /oauth2/authorize lives).", valueName: "url"))
    var server: String
    @Option(help: "The user's sign-in name.") var username: String?
    @Option(help: "The user's password. Prefer the WOPI_PASSWORD environment variable: arguments show in process lists.")
    var password: String?
    @Option(name: .customLong("identity-token-file"),
            help: ArgumentHelp("A file holding the token the host's identity provider issued to the app, exchanged instead of a password.",
                               valueName: "path"))
    var identityTokenFile: String?
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
        if identityTokenFile != nil {
            guard username == nil, password == nil else { throw ValidationError("give either --identity-token-file or --username and a password, not both") }
        } else {
            guard username != nil else { throw ValidationError("give --username and a password, or --identity-token-file") }
            guard password != nil || ProcessInfo.processInfo.environment["WOPI_PASSWORD"] != nil else {
                throw ValidationError("give the password with --password or the WOPI_PASSWORD environment variable")
            }
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let signIn = try SignInRequest(string: request)
        let password = self.password ?? ProcessInfo.processInfo.environment["WOPI_PASSWORD"] ?? ""
        let identityToken = try identityTokenFile.map(Self.readToken)
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        guard let serverURL = URL(string: base) else { throw ValidationError("--server must be an absolute http(s) URL, got '\(server)'") }
        let outcome: Result<SignInResponse, ProviderAppSignIn.Failure> = try await AsyncHTTPClientTransport.withTransport(
            timeout: .seconds(timeout), maximumBodySize: 1 << 20
        ) { transport in
            do throws(ProviderAppSignIn.Failure) {
                let app = ProviderAppSignIn(transport: transport, server: serverURL)
                if let identityToken { return .success(try await app.answer(signIn, identityToken: identityToken)) }
                return .success(try await app.answer(signIn, username: username ?? "", password: password))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let answer):
            Console.unmasked(answer.string)
        case .failure(let failure):
            Console.line(try signIn.errorResponse(OAuthAuthorizationError(code: failure.code, description: failure.description)).string)
            Console.line("wopi: error: \(failure.description)", to: .standardError)
            throw ExitCode(1)
        }
    }

    /// The token in `path`, without surrounding whitespace; an unreadable or empty file is invalid input (exit 2).
    static func readToken(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw CLIError.InvalidInput("cannot read the identity token file '\(path)'")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, token.utf8.count <= 16 * 1024, !token.contains(where: \.isWhitespace) else {
            throw CLIError.InvalidInput("the identity token file '\(path)' does not hold one token")
        }
        return token
    }
}
