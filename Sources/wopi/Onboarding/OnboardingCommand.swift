import ArgumentParser
import Foundation
import WOPIHost

/// `wopi onboarding`: what Microsoft's onboarding for Office for iOS asks of a provider
/// (docs/native/src/onboarding/onboarding.rst), filled from the host's stored configuration (issue 12).
struct OnboardingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onboarding",
        abstract: "Print what Microsoft's Office for iOS onboarding asks for, filled from this host's configuration.",
        discussion: """
            Prints one JSON object with the onboarding form's fields (BootstrapUrl, ClientId, RedirectUri, \
            AuthUriDomains, AuthScopes, SupportRefresh, …) as `wopi serve` last ran with this data folder, \
            plus "missing" (fields only you can fill in, such as the icons) and "problems" (values Microsoft \
            would refuse: an http: URL, a bootstrapper URL not ending in wopibootstrapper, a domain list \
            that does not cover the sign-in and token endpoints). The client secret is never printed: the \
            host keeps only its digest.

            Exit status: 0 when the object was printed, 2 when the data folder cannot be read.
            """
    )

    @OptionGroup var dataOptions: DataOptions

    func run() async throws {
        try await dataOptions.withStorage { folder in
            let store = folder.store
            let publicURL = try await store.hostSetting(named: PublicURLSetting.name)
            let form = OnboardingForm(
                publicURL: publicURL,
                clientID: try await store.hostSetting(named: OnboardingSettings.clientID),
                hasSecret: try await store.hostSetting(named: OnboardingSettings.secretConfigured) == "yes",
                redirectURI: try await store.hostSetting(named: OnboardingSettings.redirectURI),
                providerID: try await store.hostSetting(named: OnboardingSettings.providerID))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.line(String(decoding: try encoder.encode(form.document), as: UTF8.self))
        }
    }
}
