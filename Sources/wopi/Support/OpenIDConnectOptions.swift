import ArgumentParser
import Foundation
import Logging
import WOPIAuthorization
import WOPIHost
import WOPIOpenIDConnect

/// `--oidc-*`: sign-in through the operator's OpenID Connect provider. Like every `serve` option, each is also a
/// `WOPI_OIDC_*` environment variable and an `oidc-*` key of the configuration file. The client secret is read from
/// a file only, so it never shows in a process list, and is never printed.
struct OpenIDConnectOptions: ParsableArguments {
    @Option(name: .customLong("oidc-issuer"), help: ArgumentHelp("""
        The OpenID Connect provider's issuer identifier, e.g. https://id.contoso.com/realms/staff. Its discovery document and \
        keys are read at start; an issuer that cannot be reached, or whose document names another issuer, stops the start.
        """, valueName: "url"))
    var issuer: String?
    @Option(name: .customLong("oidc-client-id"), help: ArgumentHelp("The client id the provider registered for this host.", valueName: "id"))
    var clientID: String?
    @Option(name: .customLong("oidc-client-secret-file"),
            help: ArgumentHelp("A file holding the client's secret (trailing newline ignored). Omit for a public client.", valueName: "path"))
    var clientSecretFile: String?
    @Option(name: .customLong("oidc-scopes"), help: ArgumentHelp("The scopes asked for, space-separated; openid is always added.", valueName: "scopes"))
    var scopes: String = "openid profile"
    @Option(name: .customLong("oidc-name"), help: ArgumentHelp("The provider's name on the sign-in button: \"Sign in with NAME\".", valueName: "name"))
    var name: String = "OpenID Connect"
    @Flag(name: .customLong("oidc-only"), help: "No password form anywhere: people sign in through the provider only.")
    var only = false
    @Option(name: .customLong("oidc-username-claim"),
            help: ArgumentHelp("The id_token claim a new account is named after; sub when a token lacks it.", valueName: "claim"))
    var usernameClaim: String = "preferred_username"

    @Option(name: .customLong("oidc-app-client-id"), help: ArgumentHelp("""
        The client id the provider registered for your own iOS app. The app then answers Office's app-to-app sign-in by \
        exchanging a token the provider issued to it (RFC 8693 at /oauth2/token), with no password; tokens the provider \
        issued to any other client are refused.
        """, valueName: "id"))
    var appClientID: String?
    @Option(name: .customLong("oidc-session-lifetime"), help: ArgumentHelp("""
        Seconds a person signed in through the provider keeps Office's access before signing in there again; refreshing \
        never extends it, so a person the provider no longer lets in loses access within it.
        """, valueName: "seconds"))
    var sessionLifetime: Int = 12 * 3600

    /// Whether the provider is configured at all.
    var isEnabled: Bool { issuer != nil }

    func validate() throws {
        guard let issuer else {
            if clientID != nil || clientSecretFile != nil || only || appClientID != nil {
                throw ValidationError("--oidc-client-id, --oidc-client-secret-file, --oidc-only and --oidc-app-client-id need --oidc-issuer")
            }
            return
        }
        guard let clientID else { throw ValidationError("--oidc-issuer needs --oidc-client-id") }
        if let appClientID {
            guard !appClientID.isEmpty, appClientID.utf8.count <= 255 else { throw ValidationError("--oidc-app-client-id must have 1 to 255 characters") }
            guard appClientID != clientID else {
                throw ValidationError("--oidc-app-client-id must be your app's own client at the provider, not the host's (--oidc-client-id)")
            }
        }
        guard (300...(30 * 86400)).contains(sessionLifetime) else {
            throw ValidationError("--oidc-session-lifetime must be between 300 seconds and 30 days, got \(sessionLifetime)")
        }
        do {
            _ = try OpenIDConnectConfiguration(issuer: issuer, clientID: clientID, clientSecret: nil, scopes: [scopes], name: name,
                                               usernameClaim: usernameClaim)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The configuration, with the secret read from its file; throws `CLIError.InvalidInput` (exit 2) naming the problem.
    func configuration() throws -> OpenIDConnectConfiguration? {
        guard let issuer, let clientID else { return nil }
        var secret: String?
        if let clientSecretFile {
            guard let data = FileManager.default.contents(atPath: clientSecretFile), let text = String(data: data, encoding: .utf8) else {
                throw CLIError.InvalidInput("cannot read the OpenID Connect client secret file '\(clientSecretFile)'")
            }
            secret = text.trimmingCharacters(in: .newlines)
            guard secret?.isEmpty == false else { throw CLIError.InvalidInput("the OpenID Connect client secret file '\(clientSecretFile)' is empty") }
        }
        do {
            return try OpenIDConnectConfiguration(issuer: issuer, clientID: clientID, clientSecret: secret, scopes: [scopes], name: name,
                                                  usernameClaim: usernameClaim)
        } catch {
            throw CLIError.InvalidInput(error.description)
        }
    }

    /// Sign-in through `provider` as these options configure it.
    func signIn(through provider: any OpenIDProvider) -> OpenIDSignIn {
        OpenIDSignIn(provider: provider, passwordFormsHidden: only, appClientID: appClientID, sessionLifetime: TimeInterval(sessionLifetime))
    }

    /// The provider, its discovery document and keys read; `nil` when no issuer is configured. Throws
    /// `CLIError.InvalidInput` (exit 2, one line) when the issuer cannot be used.
    func provider(logger: Logger) async throws -> OpenIDConnectClient? {
        guard let configuration = try configuration() else { return nil }
        do {
            return try await OpenIDConnectClient.discover(configuration, logger: logger)
        } catch {
            throw CLIError.InvalidInput(error.description)
        }
    }
}
