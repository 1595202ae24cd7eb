import ArgumentParser
import Foundation
import OfficeSimulator
import WOPIHTTPClient
import WOPIHost

/// `wopi onboarding`: what Microsoft's onboarding for Office for iOS asks of a provider
/// (docs/native/src/onboarding/onboarding.rst), filled from this host's stored configuration or from
/// what any WOPI host answers.
struct OnboardingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onboarding",
        abstract: "Print what Microsoft's Office for iOS onboarding asks for, filled from this host's configuration or from any WOPI host.",
        discussion: """
            Prints one JSON object with the onboarding form's fields (BootstrapUrl, ClientId, RedirectUri, \
            AuthUriDomains, AuthScopes, SupportRefresh, …) plus "missing" (fields only you can fill in, such as \
            the icons) and "problems" (values Microsoft would refuse: an http: URL, a bootstrapper URL not \
            ending in wopibootstrapper, a domain list that does not cover the sign-in and token endpoints).

            WOPIKit's host: the fields as `wopi serve` last ran with --data (or --database). The client \
            secret is never printed: the host keeps only its digest.

            Any WOPI host: --wopi-src and --access-token name one of its files; the form is filled from its \
            CheckFileInfo (BreadcrumbBrandName as LocalizedProviderName) and, with --bootstrapper, from the \
            bootstrapper's 401 challenge (ProviderId, AuthUriDomains from authorization_uri and \
            tokenIssuance_uri). Nothing is written anywhere.
              wopi onboarding --wopi-src https://wopi.contoso.com/wopi/files/F1 --access-token "$TOKEN" \\
                --bootstrapper https://wopi.contoso.com/wopibootstrapper

            Exit status: 0 when the object was printed, 1 when the host could not be asked at all (refused, \
            reset, timed out, a CheckFileInfo that is not JSON; the object is still printed and the reason goes to \
            stderr), 2 when the data folder does not exist or cannot be read, or the input is invalid.
            """
    )

    @OptionGroup var dataOptions: DataOptions

    @Option(name: .customLong("wopi-src"), help: ArgumentHelp("The WOPISrc of a file on any WOPI host: fill the form from what that host answers.", valueName: "url"))
    var wopiSrc: String?

    @Option(name: .customLong("access-token"), help: ArgumentHelp("A WOPI access token for that file (with --wopi-src).", valueName: "token"))
    var accessToken: String?

    @Option(help: ArgumentHelp("The host's bootstrapper URL (with --wopi-src): its challenge fills ProviderId and AuthUriDomains.", valueName: "url"))
    var bootstrapper: String?

    @OptionGroup var requests: HostRequestOptions

    func validate() throws {
        guard let wopiSrc else {
            if accessToken != nil || bootstrapper != nil { throw ValidationError("--access-token and --bootstrapper go with --wopi-src") }
            guard !dataOptions.usesDatabase else { return }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dataOptions.data, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--data '\(dataOptions.data)': the folder does not exist; give the data folder `wopi serve` runs with")
            }
            return
        }
        guard let url = URLComponents(string: wopiSrc), url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false,
              url.queryItems?.contains(where: { $0.name == "access_token" }) != true else {
            throw ValidationError("--wopi-src '\(wopiSrc)' is not an http(s) WOPISrc (without access_token; give that with --access-token)")
        }
        guard let accessToken, !accessToken.isEmpty, accessToken.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ValidationError("--wopi-src needs --access-token, a non-empty token without spaces")
        }
        if let bootstrapper {
            guard let url = URL(string: bootstrapper), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--bootstrapper '\(bootstrapper)' is not an http(s) URL")
            }
        }
    }

    func run() async throws {
        if let wopiSrc, let accessToken {
            let onboarding = HostOnboarding(wopiSrc: wopiSrc, accessToken: accessToken, bootstrapper: bootstrapper)
            let outcome = try await requests.withTransport { transport in
                await onboarding.document(transport: transport)
            }
            try write(outcome.document)
            // A script must tell "the host answered, see problems" from "the host could not be asked".
            if let reason = outcome.unreachable {
                Console.write(Console.redact("wopi: onboarding: the host could not be asked: \(reason)\n"), to: .standardError)
                throw ExitCode(1)
            }
            return
        }
        try await dataOptions.withStorage { folder in
            let store = folder.store
            let publicURL = try await store.hostSetting(named: PublicURLSetting.name)
            let form = OnboardingForm(
                publicURL: publicURL,
                clientID: try await store.hostSetting(named: OnboardingSettings.clientID),
                hasSecret: try await store.hostSetting(named: OnboardingSettings.secretConfigured) == "yes",
                redirectURI: try await store.hostSetting(named: OnboardingSettings.redirectURI),
                providerID: try await store.hostSetting(named: OnboardingSettings.providerID))
            try write(form.document)
        }
    }

    private func write(_ document: OnboardingForm.Document) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        Console.line(String(decoding: try encoder.encode(document), as: UTF8.self))
    }
}
