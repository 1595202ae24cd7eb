import Foundation
import OfficeSimulator
import OfficeURLScheme
import WOPIValidator

/// What `wopi check-host` runs, in order: the mobile rules, Microsoft's validator on a scratch
/// `.wopitest` file, then the scenarios that apply. Every check is reported as it ends.
struct HostChecks: Sendable {
    /// Sign-in for the scenarios that need the bootstrapper (browse, token-refresh).
    struct SignIn: Sendable {
        var bootstrapperURL: URL
        var webCredentials: SimulationOptions.WebCredentials?
        var installedApp: (any AppSignInLauncher)?
        var registration: OfficeClientRegistration

        /// Whether a sign-in is possible, not only the bootstrapper's challenge.
        var canSignIn: Bool { webCredentials != nil || installedApp != nil }
    }

    let wopiSrc: String
    let accessToken: String
    let bootstrapper: String?
    let signIn: SignIn?
    let definitions: ValidatorDefinitions

    /// The passback scheme the scenarios' invoke URI carries, so upload-pending can show its passbacks.
    static let passbackScheme = "wopicheckhost"

    func run(report: @escaping @Sendable (ReadinessCheck) -> Void) async throws {
        let fileInfo: Data? = try await HTTPClientSimulatorTransport.withTransport { transport in
            try await rules(transport, report)
        }
        guard let fileInfo else { return }
        try await validator(report)
        try await scenarios(fileInfo, report)
    }

    private func fileURL(_ suffix: String = "") -> URL? {
        URL(string: wopiSrc + suffix + "?access_token=" + Self.percentEncoded(accessToken))
    }

    // MARK: Rules

    /// The mobile rules; returns CheckFileInfo's body, or `nil` when the host could not be read at all.
    private func rules(_ transport: HTTPClientSimulatorTransport, _ report: @Sendable (ReadinessCheck) -> Void) async throws -> Data? {
        let reachable = "checkfileinfo.answers"
        guard let url = fileURL() else {
            report(ReadinessCheck(suite: MobileRules.suite, name: reachable, outcome: .failed, detail: "the WOPISrc does not form a URL"))
            return nil
        }
        let response: SimulatorResponse
        do {
            response = try await transport.send(SimulatorRequest(method: "GET", url: url))
        } catch {
            report(ReadinessCheck(suite: MobileRules.suite, name: reachable, outcome: .failed, detail: "no answer from \(wopiSrc): \(error)"))
            return nil
        }
        guard response.status == 200 else {
            report(ReadinessCheck(suite: MobileRules.suite, name: reachable, outcome: .failed,
                                  detail: "CheckFileInfo answered HTTP \(response.status) (\(HostAnswer(response)))"))
            return nil
        }
        report(ReadinessCheck(suite: MobileRules.suite, name: reachable, outcome: .passed, detail: "CheckFileInfo answered 200"))
        let body = response.body
        report(MobileRules.requiredProperties(checkFileInfo: body))
        report(MobileRules.propertyTypes(checkFileInfo: body))
        report(MobileRules.licensingProperties(checkFileInfo: body))
        report(MobileRules.refusedCharacters(checkFileInfo: body))
        report(MobileRules.noNullValues(checkFileInfo: body))
        report(MobileRules.lastModifiedTime(checkFileInfo: body))
        let containers = MobileRules.containersAndDelete(checkFileInfo: body)
        report(containers)
        report(await licensingAgainstFolder(body, transport))

        var urls: [(role: String, url: String)] = [("WOPISrc", wopiSrc)]
        if let bootstrapper, let url = URL(string: bootstrapper) {
            urls.append(("bootstrapper", bootstrapper))
            do {
                let answer = try await transport.send(SimulatorRequest(method: "GET", url: url, headers: [SimulatorHeader("User-Agent", "WOPIKit check-host")]))
                let (check, challenge) = MobileRules.bootstrapperHeader(answer)
                report(check)
                if let challenge {
                    urls += [("authorization_uri", challenge.authorizationURI), ("tokenIssuance_uri", challenge.tokenIssuanceURI)]
                }
            } catch {
                report(ReadinessCheck(suite: MobileRules.suite, name: "bootstrapper.challenge-format", outcome: .failed,
                                      detail: "no answer from \(bootstrapper): \(error)"))
            }
        } else {
            report(ReadinessCheck(suite: MobileRules.suite, name: "bootstrapper.challenge-format", outcome: .skipped,
                                  detail: "no --bootstrapper given"))
        }
        report(MobileRules.https(urls))
        return body
    }

    /// EnumerateAncestors to the file's folder, CheckContainerInfo there, and the licensing comparison.
    private func licensingAgainstFolder(_ fileInfo: Data, _ transport: HTTPClientSimulatorTransport) async -> ReadinessCheck {
        let name = "licensing.file-equals-folder"
        let object = (try? JSONSerialization.jsonObject(with: fileInfo)) as? [String: Any]
        guard (object?["SupportsContainers"] as? Bool) == true else {
            return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .skipped, detail: "SupportsContainers is not true: no folder to compare with")
        }
        guard let url = fileURL("/ancestry"), let answer = try? await transport.send(SimulatorRequest(method: "GET", url: url)), answer.status == 200,
              let ancestors = ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["AncestorsWithRootFirst"] as? [[String: Any]],
              let folder = (ancestors.last?["Url"] as? String).flatMap(URL.init(string:)),
              let info = try? await transport.send(SimulatorRequest(method: "GET", url: folder)), info.status == 200 else {
            return ReadinessCheck(suite: MobileRules.suite, name: name, outcome: .failed,
                                  detail: "SupportsContainers is true but EnumerateAncestors and CheckContainerInfo did not lead to the file's folder")
        }
        return MobileRules.licensingEqual(checkFileInfo: fileInfo, checkContainerInfo: info.body)
    }

    // MARK: Validator

    /// Creates `check-host-<id>.wopitest` beside the file with PutRelativeFile, runs WopiCore and
    /// OfficeNativeClient on it with Microsoft's semantics, and deletes it.
    private func validator(_ report: @escaping @Sendable (ReadinessCheck) -> Void) async throws {
        let suite = "validator"
        let scratchName = "check-host-\(UUID().uuidString.prefix(8)).wopitest"
        let created: (wopiSrc: String, token: String)? = try await HTTPClientSimulatorTransport.withTransport { transport in
            guard let url = fileURL() else { return nil }
            let request = SimulatorRequest(method: "POST", url: url, headers: [
                SimulatorHeader("X-WOPI-Override", "PUT_RELATIVE"), SimulatorHeader("X-WOPI-SuggestedTarget", scratchName),
                SimulatorHeader("X-WOPI-Size", "0"), SimulatorHeader("Content-Type", "application/octet-stream"),
            ], body: Data())
            guard let answer = try? await transport.send(request), answer.status == 200,
                  let link = ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["Url"] as? String,
                  var components = URLComponents(string: link), let token = components.queryItems?.first(where: { $0.name == "access_token" })?.value
            else { return nil }
            components.queryItems = components.queryItems?.filter { $0.name != "access_token" }
            if components.queryItems?.isEmpty == true { components.queryItems = nil }
            return components.string.map { ($0, token) }
        }
        guard let created else {
            report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .failed,
                                  detail: "PutRelativeFile could not create \(scratchName) beside the file, so Microsoft's validator cannot run"))
            return
        }
        let target: ConformanceTarget
        do {
            target = try ConformanceTarget(wopiSrc: created.wopiSrc, accessToken: created.token, accessTokenTTL: 0)
        } catch {
            report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .failed, detail: "\(error)"))
            return
        }
        report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .passed, detail: "created \(scratchName) with PutRelativeFile"))
        try await AsyncHTTPClientTransport.withTransport { transport in
            let runner = ConformanceRunner(definitions: definitions, target: target, selection: .wopiKit, policy: .original, transport: transport)
            _ = await runner.run { result in
                let outcome: ReadinessCheck.Outcome = switch result.status {
                case .passed: .passed
                case .failed: .failed
                case .skipped: .skipped
                }
                let detail = result.status == .passed ? "passed" : String(result.summaryLine.drop { $0 != ":" }.dropFirst().prefix(400)).trimmingCharacters(in: .whitespaces)
                report(ReadinessCheck(suite: suite, name: "\(result.group)/\(result.name)", outcome: outcome, detail: detail))
            }
            // The scratch file is the checker's own: remove it (best effort; a host without DeleteFile keeps it).
            let delete = TransportRequest(method: "POST", url: created.wopiSrc + "?access_token=" + Self.percentEncoded(created.token),
                                          headers: [HeaderField("X-WOPI-Override", "DELETE")], body: [])
            _ = try? await transport.send(delete)
        }
    }

    /// A token percent-encoded for a query string.
    private static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Scenarios

    private func scenarios(_ fileInfo: Data, _ report: @escaping @Sendable (ReadinessCheck) -> Void) async throws {
        let suite = "scenario"
        let object = (try? JSONSerialization.jsonObject(with: fileInfo)) as? [String: Any]
        let name = object?["BaseFileName"] as? String ?? ""
        let user = object?["UserId"] as? String ?? ""
        guard let app = OfficeApp(fileExtension: name) else {
            for scenario in SimulationScenario.allCases {
                report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .skipped,
                                      detail: "'\(name)' is not a Word, Excel or PowerPoint file; point --wopi-src at one"))
            }
            return
        }
        let invoke: OfficeInvokeURI
        do {
            invoke = try OfficeInvokeURI(app: app, command: .edit, documentURL: wopiSrc, service: "WOPIKit", user: user, fileName: name,
                                         source: .app, passbackScheme: Self.passbackScheme, context: nil)
        } catch {
            report(ReadinessCheck(suite: suite, name: "invoke-uri", outcome: .failed, detail: "no invoke URI can name this file: \(error)"))
            return
        }
        for scenario in SimulationScenario.allCases {
            var options = SimulationOptions(invokeURI: invoke, bootstrapperURL: nil, scenario: scenario, accessToken: accessToken)
            if let signIn, signIn.canSignIn {
                options = SimulationOptions(invokeURI: invoke, bootstrapperURL: signIn.bootstrapperURL, webCredentials: signIn.webCredentials,
                                            installedApp: signIn.installedApp, registration: signIn.registration, scenario: scenario)
            }
            let outcome: Result<SimulationResult, SimulationFailure> = try await HTTPClientSimulatorTransport.withTransport { transport in
                do throws(SimulationFailure) {
                    return .success(try await OfficeSimulator(options: options, transport: transport).run())
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let result):
                if let reason = result.notApplicable {
                    report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .skipped, detail: reason))
                } else {
                    report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .passed, detail: "\(result.steps.count) steps as Office for iOS expects"))
                }
            case .failure(let failure):
                report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .failed, detail: failure.description))
            }
        }
    }
}
