import Foundation
import OfficeSimulator
import OfficeURLScheme
import WOPIHTTPClient
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

    /// An existing `.wopitest` file to run Microsoft's validator on (`--scratch-file`, `--scratch-token`),
    /// for hosts without PutRelativeFile. It is the user's: never deleted.
    struct ScratchFile: Sendable {
        var wopiSrc: String
        var accessToken: String
    }

    let wopiSrc: String
    let accessToken: String
    let bootstrapper: String?
    let signIn: SignIn?
    let definitions: ValidatorDefinitions
    var scratchFile: ScratchFile? = nil
    /// The browser editors whose required properties and profile are checked too (`--client`).
    var clients: [WebClientProfile] = []
    /// How long a request may take and how much of an answer is read (`--timeout`, `--max-body-size`).
    var requests = HostRequestLimits()

    /// The passback scheme the scenarios' invoke URI carries, so upload-pending can show its passbacks.
    static let passbackScheme = "wopicheckhost"

    /// Runs every check, reporting each as it ends; `leftover` hears, once per scenario that failed,
    /// what it changed on the host and could not put back.
    func run(report: @escaping @Sendable (ReadinessCheck) -> Void, leftover: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let fileInfo: Data? = try await requests.withTransport { transport in
            try await rules(transport, report)
        }
        guard let fileInfo, !Task.isCancelled else { return }
        try await validator(report)
        guard !Task.isCancelled else { return }
        try await scenarios(fileInfo, report, leftover)
    }

    private func fileURL(_ suffix: String = "") -> URL? {
        URL(string: wopiSrc + suffix + "?access_token=" + Self.percentEncoded(accessToken))
    }

    // MARK: Rules

    /// The mobile rules; returns CheckFileInfo's body, or `nil` when the host could not be read at all.
    private func rules(_ transport: AsyncHTTPClientTransport, _ report: @Sendable (ReadinessCheck) -> Void) async throws -> Data? {
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
        // Nothing else can be judged, or safely written, on a host whose CheckFileInfo is not JSON.
        guard (try? JSONSerialization.jsonObject(with: response.body)) is [String: Any] else {
            report(ReadinessCheck(suite: MobileRules.suite, name: reachable, outcome: .failed,
                                  detail: "CheckFileInfo answered 200 but not a JSON object, so nothing else was checked or written (\(HostAnswer(response)))"))
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
        for client in clients { report(client.requiredPropertiesCheck(checkFileInfo: body)) }
        let containers = MobileRules.containersAndDelete(checkFileInfo: body)
        report(containers)
        report(await getLockOnUnlockedFile(body, transport))
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

    /// GetLock on the file, judged by ``MobileRules/getLockOnUnlockedFile(_:)`` when CheckFileInfo sets SupportsGetLock.
    private func getLockOnUnlockedFile(_ fileInfo: Data, _ transport: AsyncHTTPClientTransport) async -> ReadinessCheck {
        guard ((try? JSONSerialization.jsonObject(with: fileInfo)) as? [String: Any])?["SupportsGetLock"] as? Bool == true else {
            return ReadinessCheck(suite: MobileRules.suite, name: MobileRules.getLockRuleName, outcome: .skipped, detail: "CheckFileInfo does not set SupportsGetLock")
        }
        guard let url = fileURL() else {
            return ReadinessCheck(suite: MobileRules.suite, name: MobileRules.getLockRuleName, outcome: .failed, detail: "the WOPISrc does not form a URL")
        }
        let request = SimulatorRequest(method: "POST", url: url, headers: [SimulatorHeader("X-WOPI-Override", "GET_LOCK")], body: Data())
        do {
            return MobileRules.getLockOnUnlockedFile(try await transport.send(request))
        } catch {
            return ReadinessCheck(suite: MobileRules.suite, name: MobileRules.getLockRuleName, outcome: .failed, detail: "GetLock got no answer: \(error)")
        }
    }

    /// EnumerateAncestors to the file's folder, CheckContainerInfo there, and the licensing comparison.
    private func licensingAgainstFolder(_ fileInfo: Data, _ transport: AsyncHTTPClientTransport) async -> ReadinessCheck {
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

    /// Runs WopiCore and OfficeNativeClient with Microsoft's semantics on a scratch `.wopitest` file: the one
    /// given with `--scratch-file`, or `check-host-<id>.wopitest` created beside the file with PutRelativeFile
    /// and deleted afterwards, whatever ends the run (failure, SIGINT, SIGTERM, a closed stdout).
    ///
    /// The family passes only when the validator really ran: no prerequisite failed for the host's fault, and
    /// each category that applies had cases that ran.
    private func validator(_ report: @escaping @Sendable (ReadinessCheck) -> Void) async throws {
        let suite = "validator"
        let scratch: ScratchFile
        let isOurs: Bool
        if let scratchFile {
            scratch = scratchFile
            isOurs = false
            report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .passed, detail: "using the given \(scratchFile.wopiSrc)"))
        } else {
            let scratchName = "check-host-\(UUID().uuidString.prefix(8)).wopitest"
            // Not cancellable: once the host made the file, its address must be known so it can be deleted.
            switch await Task(operation: { await createScratchFile(named: scratchName) }).value {
            case .success(let created):
                scratch = created
                isOurs = true
                report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .passed, detail: "created \(scratchName) with PutRelativeFile"))
            case .failure(let reason):
                report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .failed,
                                      detail: "PutRelativeFile gave no scratch file \(scratchName) beside the file (\(reason)), so Microsoft's "
                                        + "validator cannot run; name an existing .wopitest file with --scratch-file and --scratch-token"))
                return
            }
        }
        let target: ConformanceTarget
        do {
            target = try ConformanceTarget(wopiSrc: scratch.wopiSrc, accessToken: scratch.accessToken, accessTokenTTL: 0)
        } catch {
            report(ReadinessCheck(suite: suite, name: "scratch-file", outcome: .failed, detail: "\(error)"))
            return
        }
        try await requests.withTransport { transport in
            let selection = RunSelection.wopiKit
            let runner = ConformanceRunner(definitions: definitions, target: target, selection: selection, policy: .original, transport: transport)
            let run = await runner.run(progress: { result in
                let outcome: ReadinessCheck.Outcome = switch result.status {
                case .passed: .passed
                case .failed: .failed
                case .skipped: .skipped
                }
                report(ReadinessCheck(suite: suite, name: "\(result.group)/\(result.name)", outcome: outcome, detail: result.detail))
            }, prerequisiteFailed: { failure in
                report(ReadinessCheck(suite: suite, name: "prerequisite/\(failure.name)", outcome: .failed, detail: failure.detail))
            })
            // Not cancellable either: the scratch file is the checker's own and goes on every way out
            // (best effort; a host without DeleteFile keeps it).
            if isOurs, let url = URL(string: scratch.wopiSrc + "?access_token=" + Self.percentEncoded(scratch.accessToken)) {
                let delete = TransportRequest(method: "POST", url: url, headers: [HeaderField("X-WOPI-Override", "DELETE")], body: Data())
                _ = await Task { try? await transport.send(delete) }.value
            }
            guard !Task.isCancelled else { return }
            report(Self.validatorVerdict(run, categories: selection.categories))
        }
    }

    /// Whether the validator vouches for the host: it ran each category's cases and no prerequisite failed.
    static func validatorVerdict(_ run: RunReport, categories: Set<TestCategory>) -> ReadinessCheck {
        let name = "ran"
        if let failure = run.prerequisiteFailures.first {
            return ReadinessCheck(suite: "validator", name: name, outcome: .failed,
                                  detail: "no case could vouch for the host: \(failure.blockedLine) (see validator prerequisite/\(failure.name))")
        }
        let idle = categories.sorted { $0.rawValue < $1.rawValue }.filter { category in
            !run.results.contains { $0.category == category.rawValue && $0.status != .skipped }
        }
        guard idle.isEmpty else {
            return ReadinessCheck(suite: "validator", name: name, outcome: .failed,
                                  detail: "no \(idle.map(\.rawValue).joined(separator: " or ")) case ran (\(run.totals.line))")
        }
        return ReadinessCheck(suite: "validator", name: name, outcome: run.totals.failed == 0 ? .passed : .failed,
                              detail: run.totals.line)
    }

    /// PutRelativeFile of an empty `name` beside the file: the new file's WOPISrc and token, or why not
    /// (the HTTP status and the start of the masked body).
    private func createScratchFile(named name: String) async -> Result<ScratchFile, ScratchFailure> {
        guard let url = fileURL() else { return .failure(ScratchFailure("the WOPISrc does not form a URL")) }
        do {
            return try await requests.withTransport { transport in
                let request = SimulatorRequest(method: "POST", url: url, headers: [
                    SimulatorHeader("X-WOPI-Override", "PUT_RELATIVE"), SimulatorHeader("X-WOPI-SuggestedTarget", name),
                    SimulatorHeader("X-WOPI-Size", "0"), SimulatorHeader("Content-Type", "application/octet-stream"),
                ], body: Data())
                let answer = try await transport.send(request)
                let body = String(Console.redact(String(decoding: answer.body, as: UTF8.self)).split(whereSeparator: \.isNewline).joined(separator: " "))
                let excerpt = body.isEmpty ? "no body"
                    : "body: " + String(body.prefix(TestCaseResult.bodyExcerptLength)) + (body.count > TestCaseResult.bodyExcerptLength ? "…" : "")
                guard answer.status == 200 else {
                    // A host may make the file and still answer an error: it is deleted all the same.
                    let leftover = await deleteUnannounced(named: name, transport)
                    return .failure(ScratchFailure("HTTP \(answer.status), \(excerpt); \(leftover)"))
                }
                guard let link = ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["Url"] as? String,
                      var components = URLComponents(string: link),
                      let token = components.queryItems?.first(where: { $0.name == "access_token" })?.value else {
                    let leftover = await deleteUnannounced(named: name, transport)
                    return .failure(ScratchFailure("HTTP 200 without a Url holding an access_token, \(excerpt); \(leftover)"))
                }
                Console.addSecrets([token])
                components.queryItems = components.queryItems?.filter { $0.name != "access_token" }
                if components.queryItems?.isEmpty == true { components.queryItems = nil }
                guard let wopiSrc = components.string else { return .failure(ScratchFailure("its Url '\(link)' is not a URL")) }
                return .success(ScratchFile(wopiSrc: wopiSrc, accessToken: token))
            }
        } catch {
            return .failure(ScratchFailure("no answer: \(error)"))
        }
    }

    /// Finds `name` in the file's folder (EnumerateAncestors, EnumerateChildren) after PutRelativeFile
    /// failed, and deletes it if the host made it anyway; says what became of it.
    private func deleteUnannounced(named name: String, _ transport: AsyncHTTPClientTransport) async -> String {
        let unknown = "whether the host made \(name) anyway cannot be told without its folder listing (EnumerateAncestors, EnumerateChildren); delete it by hand if it is there"
        guard let url = fileURL("/ancestry"), let answer = try? await transport.send(SimulatorRequest(method: "GET", url: url)), answer.status == 200,
              let ancestors = ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["AncestorsWithRootFirst"] as? [[String: Any]],
              let folderLink = ancestors.last?["Url"] as? String, var folder = URLComponents(string: folderLink) else { return unknown }
        folder.path += "/children"
        guard let childrenURL = folder.url, let listing = try? await transport.send(SimulatorRequest(method: "GET", url: childrenURL)), listing.status == 200,
              let children = ((try? JSONSerialization.jsonObject(with: listing.body)) as? [String: Any])?["ChildFiles"] as? [[String: Any]] else {
            return unknown
        }
        guard let made = children.first(where: { $0["Name"] as? String == name }) else { return "the host did not make \(name)" }
        guard let link = made["Url"] as? String, let fileURL = URL(string: link) else {
            return "the host made \(name) anyway, without a Url to delete it by; delete it by hand"
        }
        let delete = SimulatorRequest(method: "POST", url: fileURL, headers: [SimulatorHeader("X-WOPI-Override", "DELETE")], body: Data())
        guard let deleted = try? await transport.send(delete), deleted.status == 200 else {
            return "the host made \(name) anyway and DeleteFile did not remove it; delete it by hand"
        }
        return "the host made \(name) anyway; it is deleted"
    }

    /// Why the scratch file could not be made.
    struct ScratchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A token percent-encoded for a query string.
    private static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Scenarios

    /// Every scenario leaves the file as it found it (its name, locks and content put back); `rename` still goes
    /// last, so on a host that loses a renamed file only `rename` fails.
    private func scenarios(_ fileInfo: Data, _ report: @escaping @Sendable (ReadinessCheck) -> Void,
                           _ leftover: @escaping @Sendable (String) -> Void) async throws {
        let last: [SimulationScenario] = [.rename]
        try await officeScenarios(SimulationScenario.playOrder.filter { !last.contains($0) }, fileInfo, report, leftover)
        for client in clients where !Task.isCancelled {
            report(try await browserEditor(client, leftover))
        }
        guard !Task.isCancelled else { return }
        try await officeScenarios(last, fileInfo, report, leftover)
    }

    /// `wopi simulate --client` on the file: one scenario check named after the client.
    private func browserEditor(_ client: WebClientProfile, _ leftover: @Sendable (String) -> Void) async throws -> ReadinessCheck {
        let options = WebClientSimulationOptions(client: client, wopiSrc: URL(string: wopiSrc), accessToken: accessToken, putsContentBack: true)
        let outcome: Result<SimulationResult, SimulationFailure> = try await requests.withTransport { transport in
            do throws(SimulationFailure) {
                return .success(try await WebClientSimulator(options: options, transport: transport).run())
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            for each in result.leftovers { leftover("scenario \(client.rawValue): \(each)") }
            return ReadinessCheck(suite: "scenario", name: client.rawValue, outcome: .passed, detail: "\(result.steps.count) steps as \(client.displayName) expects")
        case .failure(let failure):
            for each in failure.leftovers { leftover("scenario \(client.rawValue): \(each)") }
            return ReadinessCheck(suite: "scenario", name: client.rawValue, outcome: .failed, detail: failure.description)
        }
    }

    private func officeScenarios(_ scenarios: [SimulationScenario], _ fileInfo: Data, _ report: @escaping @Sendable (ReadinessCheck) -> Void,
                                 _ leftover: @escaping @Sendable (String) -> Void) async throws {
        let suite = "scenario"
        let object = (try? JSONSerialization.jsonObject(with: fileInfo)) as? [String: Any]
        let name = object?["BaseFileName"] as? String ?? ""
        let user = object?["UserId"] as? String ?? ""
        guard let app = OfficeApp(fileExtension: name) else {
            for scenario in scenarios {
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
        for scenario in scenarios where !Task.isCancelled {
            var options = SimulationOptions(invokeURI: invoke, bootstrapperURL: nil, scenario: scenario, accessToken: accessToken, putsContentBack: true)
            if let signIn, signIn.canSignIn {
                options = SimulationOptions(invokeURI: invoke, bootstrapperURL: signIn.bootstrapperURL, webCredentials: signIn.webCredentials,
                                            installedApp: signIn.installedApp, registration: signIn.registration, scenario: scenario,
                                            putsContentBack: true)
            }
            let outcome: Result<SimulationResult, SimulationFailure> = try await requests.withTransport { transport in
                do throws(SimulationFailure) {
                    return .success(try await OfficeSimulator(options: options, transport: transport).run())
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let result):
                for each in result.leftovers { leftover("scenario \(scenario.rawValue): \(each)") }
                if let reason = result.notApplicable {
                    report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .skipped, detail: reason))
                } else {
                    report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .passed, detail: "\(result.steps.count) steps as Office for iOS expects"))
                }
            case .failure(let failure):
                for each in failure.leftovers { leftover("scenario \(scenario.rawValue): \(each)") }
                report(ReadinessCheck(suite: suite, name: scenario.rawValue, outcome: .failed, detail: failure.description))
            }
        }
    }
}
