import Foundation
import OfficeSimulator
import OfficeURLScheme
import WOPIHTTPClient

/// The onboarding form for any WOPI host, filled from what the host answers: CheckFileInfo on one
/// of its files and, when given, its bootstrapper's unauthenticated 401 challenge
/// (onboarding.rst, bootstrapper.rst). What only the provider knows goes to `missing`; what
/// Microsoft would refuse goes to `problems`.
struct HostOnboarding {
    let wopiSrc: String
    let accessToken: String
    let bootstrapper: String?

    /// The form, and why the host could not be asked at all (no answer, or a CheckFileInfo that is not
    /// JSON), when it could not.
    struct Outcome {
        var document: OnboardingForm.Document
        var unreachable: String?
    }

    /// Asks the host and builds the form.
    func document(transport: AsyncHTTPClientTransport) async -> Outcome {
        var unreachable: String?
        var missing = ["LocalizedProviderName", "IconLocations", "ProviderDescription", "ClientId", "ClientSecret", "RedirectUri",
                       "AuthScopes", "SupportRefresh"]
        var problems: [OnboardingForm.Problem] = []
        var brandName: String?

        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        let token = accessToken.addingPercentEncoding(withAllowedCharacters: unreserved) ?? accessToken
        if let url = URL(string: wopiSrc + "?access_token=" + token) {
            do {
                let answer = try await transport.send(SimulatorRequest(method: "GET", url: url, headers: [SimulatorHeader("User-Agent", "WOPIKit onboarding")]))
                if answer.status != 200 {
                    problems.append(.init(field: "WOPISrc", problem: "CheckFileInfo answered HTTP \(answer.status) (\(HostAnswer(answer)))"))
                } else {
                    let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
                    if object == nil {
                        let problem = "CheckFileInfo answered 200 but not a JSON object (\(HostAnswer(answer)))"
                        problems.append(.init(field: "WOPISrc", problem: problem))
                        unreachable = problem
                    }
                    brandName = (object?["BreadcrumbBrandName"] as? String).flatMap { $0.isEmpty ? nil : $0 }
                }
            } catch {
                let problem = "no answer from \(wopiSrc): \(error)"
                problems.append(.init(field: "WOPISrc", problem: problem))
                unreachable = problem
            }
        }
        if let problem = Self.notHTTPS(wopiSrc) { problems.append(.init(field: "WOPISrc", problem: problem)) }
        if brandName != nil { missing.removeAll { $0 == "LocalizedProviderName" } }

        var providerID: String?
        var domains: [String] = []
        if let bootstrapper, let url = URL(string: bootstrapper) {
            if !url.path.hasSuffix("wopibootstrapper") {
                problems.append(.init(field: "BootstrapUrl", problem: "\(bootstrapper) must end in wopibootstrapper"))
            }
            if let problem = Self.notHTTPS(bootstrapper) { problems.append(.init(field: "BootstrapUrl", problem: problem)) }
            do {
                let answer = try await transport.send(SimulatorRequest(method: "GET", url: url, headers: [SimulatorHeader("User-Agent", "WOPIKit onboarding")]))
                let (check, challenge) = MobileRules.bootstrapperHeader(answer)
                if let challenge {
                    providerID = challenge.providerID
                    for (role, endpoint) in [("authorization_uri", challenge.authorizationURI), ("tokenIssuance_uri", challenge.tokenIssuanceURI)] {
                        guard let host = URLComponents(string: endpoint)?.host?.lowercased() else {
                            problems.append(.init(field: "AuthUriDomains", problem: "the challenge's \(role) '\(endpoint.prefix(200))' has no host"))
                            continue
                        }
                        if !domains.contains(host) { domains.append(host) }
                        if let problem = Self.notHTTPS(endpoint) { problems.append(.init(field: "AuthUriDomains", problem: "\(role): \(problem)")) }
                    }
                } else {
                    problems.append(.init(field: "BootstrapUrl", problem: check.detail))
                }
            } catch {
                problems.append(.init(field: "BootstrapUrl", problem: "no answer from \(bootstrapper): \(error)"))
            }
        } else {
            missing.append("BootstrapUrl")
        }
        if providerID == nil { missing.append("ProviderId") }
        if domains.isEmpty { missing.append("AuthUriDomains") }
        let document = OnboardingForm.Document(
            LocalizedProviderName: brandName, IconLocations: nil, BootstrapUrl: bootstrapper, ProviderDescription: nil, ClientId: nil,
            ClientSecret: nil, ClientAppName: "Office", RedirectUri: nil, ProviderId: providerID,
            AuthUriDomains: domains.isEmpty ? nil : domains.joined(separator: ", "), AuthScopes: nil, SupportRefresh: nil,
            missing: missing, problems: problems)
        return Outcome(document: document, unreachable: unreachable)
    }

    /// Why `url` is not what Office for iOS accepts, or `nil`: https, or http on loopback for a test.
    static func notHTTPS(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else { return "\(url.prefix(200)) is not an absolute URL" }
        if scheme == "https" { return nil }
        let host = components.host ?? ""
        return MobileRules.isLoopback(host)
            ? "\(url.prefix(200)) is an http: URL; Office for iOS accepts it on loopback only, for tests, so register an https one"
            : "\(url.prefix(200)) is an http: URL; Office for iOS requires https"
    }
}
