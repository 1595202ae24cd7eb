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
        let folder = try dataOptions.open()
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
        FileHandle.standardOutput.write(try encoder.encode(form.document) + Data("\n".utf8))
    }
}

/// The Office registration `wopi serve` last ran with, recorded for `wopi onboarding` under names of
/// their own (the sign-in options' own settings are fallbacks serve reads, and must not change meaning).
/// The secret itself is never recorded: only that one is configured.
enum OnboardingSettings {
    static let clientID = "onboarding-client-id"
    static let secretConfigured = "onboarding-client-secret-configured"
    static let redirectURI = "onboarding-redirect-uri"
    static let providerID = "onboarding-provider-id"

    static func record(_ registration: OfficeRegistration, in store: any WOPIStore) async throws {
        try await store.setHostSetting(registration.clientID, named: clientID)
        try await store.setHostSetting("yes", named: secretConfigured)
        try await store.setHostSetting(registration.redirectURI, named: redirectURI)
        try await store.setHostSetting(registration.providerID ?? "", named: providerID)
    }
}

/// The onboarding form (onboarding.rst's table) and the checks on its values.
struct OnboardingForm {
    let publicURL: String?
    let clientID: String?
    let hasSecret: Bool
    let redirectURI: String?
    let providerID: String?

    struct Problem: Encodable, Hashable {
        let field: String
        let problem: String
    }

    struct Document: Encodable {
        let LocalizedProviderName: String?
        let IconLocations: [String]?
        let BootstrapUrl: String?
        let ProviderDescription: String?
        let ClientId: String?
        let ClientSecret: String?
        let ClientAppName: String
        let RedirectUri: String?
        let ProviderId: String?
        let AuthUriDomains: String?
        let AuthScopes: String?
        let SupportRefresh: Bool
        let missing: [String]
        let problems: [Problem]
    }

    var document: Document {
        var missing = ["LocalizedProviderName", "IconLocations", "ProviderDescription"]
        var problems: [Problem] = []
        let base = publicURL.flatMap { URLComponents(string: $0) }
        let bootstrap = publicURL.map { $0.hasSuffix("/") ? $0 + "wopibootstrapper" : $0 + "/wopibootstrapper" }
        let host = base?.host?.lowercased()
        if bootstrap == nil { missing.append("BootstrapUrl") }
        if let bootstrap {
            if !bootstrap.hasSuffix("wopibootstrapper") {
                problems.append(Problem(field: "BootstrapUrl", problem: "must end in wopibootstrapper"))
            }
            if base?.scheme?.lowercased() != "https" {
                problems.append(Problem(field: "BootstrapUrl", problem: "\(bootstrap) is an http: URL; Office for iOS requires https (run wopi serve with --public-url https://…)"))
            }
        }
        if clientID == nil { missing.append("ClientId") }
        if !hasSecret { missing.append("ClientSecret") }
        let provider = providerID.flatMap { $0.isEmpty ? nil : $0 }
        if provider == nil { missing.append("ProviderId") }
        let redirect = redirectURI ?? OfficeRegistration.defaultRedirectURI
        if let url = URLComponents(string: redirect), url.scheme?.lowercased() == "http" {
            problems.append(Problem(field: "RedirectUri", problem: "\(redirect) is an http: URL; use https (Office never loads it)"))
        }
        // The authorization and token endpoints are served from the public URL, as is the bootstrapper,
        // so the one domain covers them; a domain list that did not would fail Office's sign-in.
        let domains = host.map { [$0] } ?? []
        let endpoints = bootstrap.map { [("authorization_uri", $0), ("tokenIssuance_uri", $0)] } ?? []
        for (role, url) in endpoints {
            guard let endpointHost = URLComponents(string: url)?.host?.lowercased() else { continue }
            if !domains.contains(where: { endpointHost == $0 || endpointHost.hasSuffix("." + $0) }) {
                problems.append(Problem(field: "AuthUriDomains", problem: "\(domains.joined(separator: ", ")) does not cover the \(role) host \(endpointHost)"))
            }
        }
        if domains.isEmpty { missing.append("AuthUriDomains") }
        return Document(
            LocalizedProviderName: nil, IconLocations: nil, BootstrapUrl: bootstrap, ProviderDescription: nil, ClientId: clientID,
            ClientSecret: hasSecret ? "(held only as a digest; give Microsoft the secret you set with --office-client-secret or that wopi serve printed once)" : nil,
            ClientAppName: "Office", RedirectUri: redirect, ProviderId: provider,
            AuthUriDomains: domains.isEmpty ? nil : domains.joined(separator: ", "),
            // WOPIKit's authorization server grants the scope Office asks for (wopi); none need registering.
            AuthScopes: nil,
            // The token endpoint issues refresh tokens and accepts grant_type=refresh_token.
            SupportRefresh: true,
            missing: missing, problems: problems)
    }
}
