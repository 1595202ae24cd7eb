import ArgumentParser
import Foundation
import Logging
import OfficeURLScheme
import WOPIOpenIDConnect

/// `wopi doctor`: checks an iOS app's Info.plist for launching Office and being returned to, and the
/// OpenID Connect provider `wopi serve --oidc-issuer` would use.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check an iOS app's Info.plist for what Office integration needs.",
        discussion: """
            Reads an XML or binary Info.plist and lists each problem with its fix:
              - Office schemes missing from LSApplicationQueriesSchemes (ms-word, ms-excel, \
            ms-powerpoint, onenote and the ms-*-wopi-support-1605 check schemes), without which \
            canOpenURL answers false;
              - more than 50 LSApplicationQueriesSchemes entries (iOS ignores the rest);
              - the passback and sign-in schemes not registered under CFBundleURLTypes.

            With --oidc-issuer (and --oidc-client-id, as for `wopi serve`) it reads the provider's \
            discovery document and keys as `wopi serve` does at start, and says what it found or, in one \
            line, why the start would stop.

            Exit status: 0 when there are no findings, 1 when there are, 2 when the file cannot \
            be read, a scheme is invalid, or the OpenID Connect issuer cannot be used.

            Examples:
              wopi doctor MyApp/Info.plist --passback clouddrive --sign-in-scheme contoso
              wopi doctor --oidc-issuer https://id.contoso.com/realms/staff --oidc-client-id wopikit
            """
    )

    @Argument(help: ArgumentHelp("The Info.plist to check (XML or binary).", valueName: "path"))
    var path: String?

    @Option(help: "The passback scheme your app sends as |p|; must be under CFBundleURLTypes.")
    var passback: String?

    @Option(name: .customLong("sign-in-scheme"), help: "The scheme Office opens for app-to-app sign-in; must be under CFBundleURLTypes.")
    var signInScheme: String?

    @Option(name: .customLong("oidc-issuer"), help: ArgumentHelp("An OpenID Connect issuer to check as `wopi serve` would.", valueName: "url"))
    var oidcIssuer: String?

    @Option(name: .customLong("oidc-client-id"), help: ArgumentHelp("The client id to check the issuer with.", valueName: "id"))
    var oidcClientID: String = "wopikit"

    func validate() throws {
        guard path != nil || oidcIssuer != nil else { throw ValidationError("give an Info.plist to check, --oidc-issuer, or both") }
    }

    func run() async throws {
        if let oidcIssuer { try await checkIssuer(oidcIssuer) }
        guard let path else { return }
        let findings: [InfoPlistFinding]
        do {
            let check = try InfoPlistCheck(passbackScheme: passback, signInScheme: signInScheme)
            findings = try check.check(contentsOf: URL(fileURLWithPath: path))
        } catch let error as OfficeURLError {
            throw ValidationError(error.description)
        } catch let error as InfoPlistCheckError {
            throw ValidationError(error.description)
        }
        guard !findings.isEmpty else {
            Console.line("\(path): no problems found.")
            return
        }
        Console.line("\(path): \(findings.count) problem\(findings.count == 1 ? "" : "s") found.")
        for finding in findings {
            Console.line("- \(finding.problem)")
            Console.line("  fix: \(finding.fix)")
        }
        throw ExitCode(1)
    }

    /// The provider as `wopi serve` reads it at start: one line either way; exit 2 when the start would stop.
    private func checkIssuer(_ issuer: String) async throws {
        let configuration: OpenIDConnectConfiguration
        do { configuration = try OpenIDConnectConfiguration(issuer: issuer, clientID: oidcClientID, clientSecret: nil) } catch {
            throw CLIError.InvalidInput(error.description)
        }
        do {
            var logger = Logger(label: "wopi.doctor")
            logger.logLevel = .error
            let provider = try await OpenIDConnectClient.discover(configuration, logger: logger)
            let keys = await provider.keyCount
            Console.line("OpenID Connect issuer \(issuer): usable (authorization \(provider.metadata.authorizationEndpoint), "
                         + "token \(provider.metadata.tokenEndpoint), \(keys) signing key\(keys == 1 ? "" : "s"))")
        } catch {
            throw CLIError.InvalidInput(error.description)
        }
    }
}
