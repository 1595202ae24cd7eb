import ArgumentParser
import Foundation
import Logging
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

    /// Whether the provider is configured at all.
    var isEnabled: Bool { issuer != nil }

    func validate() throws {
        guard let issuer else {
            if clientID != nil || clientSecretFile != nil || only { throw ValidationError("--oidc-client-id, --oidc-client-secret-file and --oidc-only need --oidc-issuer") }
            return
        }
        guard let clientID else { throw ValidationError("--oidc-issuer needs --oidc-client-id") }
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
