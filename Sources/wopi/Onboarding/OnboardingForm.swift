import Foundation
import WOPIAuthorization
import WOPIHost

/// The onboarding form (onboarding.rst's table) and the checks on its values.
struct OnboardingForm {
    let publicURL: String?
    let clientID: String?
    let hasSecret: Bool
    let redirectURI: String?
    let providerID: String?

    struct Problem: Encodable, Hashable, Sendable {
        let field: String
        let problem: String
    }

    struct Document: Encodable, Sendable {
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
        let SupportRefresh: Bool?
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
            ClientSecret: hasSecret ? "(held only as a digest; give Microsoft the secret you set with --office-client-secret or the one wopi serve wrote to first-start-secrets.txt in its data folder)" : nil,
            ClientAppName: "Office", RedirectUri: redirect, ProviderId: provider,
            AuthUriDomains: domains.isEmpty ? nil : domains.joined(separator: ", "),
            // WOPIKit's authorization server grants the scope Office asks for (wopi); none need registering.
            AuthScopes: nil,
            // The token endpoint issues refresh tokens and accepts grant_type=refresh_token.
            SupportRefresh: true,
            missing: missing, problems: problems)
    }
}
