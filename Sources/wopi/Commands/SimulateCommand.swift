import ArgumentParser
import Foundation
import OfficeSimulator
import OfficeURLScheme
import WOPIHTTPClient

extension WebClientProfile: ExpressibleByArgument {}

/// `wopi simulate`: play Office for iOS, or a browser editor, against a WOPI host, step by step.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Open a file on a WOPI host the way Office for iOS does, and report each step.",
        discussion: """
            Given the invoke URI your app hands Office (as `wopi link` makes it) and your bootstrapper URL, \
            does what Word, Excel or PowerPoint for iOS do:
              1. check the invoke URI (Office scheme, ofv/ofe, |u| WOPISrc, |d| |e| |n| |a|)
              2. call the bootstrapper without a token and read its 401 WWW-Authenticate challenge
              3. sign in: through your app when the challenge lists iOS URL schemes and an app command \
            is given (app-to-app), else on your web sign-in page with --username and --password
              4. exchange the code (at tk if the sign-in returned one, sending sc back as \
            X-WOPI-SessionContext), call Bootstrap, and GET_NEW_ACCESS_TOKEN for the WOPISrc
              5. CheckFileInfo, GetLock, RefreshLock with a made-up lock (must answer 409 with \
            X-WOPI-Lock), Lock, GetFile
              6. in edit mode: PutFile with the lock, CheckFileInfo (Version must change), Unlock
              7. print the passback Office sends on the back arrow, when the URI has |p|

            Prints one line per step as it goes; the passback URI is the last line of stdout. With \
            --json every line is one JSON object {step, title, outcome, detail}, the passback step \
            carrying "passback"; a failed step adds reason, status, headers and body.

            App-to-app sign-in: the command runs through /bin/sh with Office's request URL \
            (contoso:client_id=…&action=…) appended as its last argument, single-quoted, and must \
            print the answer URL (ms-word-tp:code=…&action=…) as the last line of its stdout:
              wopi simulate 'ms-word:ofe|u|http://127.0.0.1:8080/wopi/files/F1|d|WOPIKit|e|U1|n|a.docx|a|App|p|clouddrive|c|ctx' \\
                --bootstrapper http://127.0.0.1:8080/wopibootstrapper \\
                --app-signin-command "wopi app-signin --server http://127.0.0.1:8080 --username alice --password pw"

            Scenarios (--scenario, default open-edit-save): each plays one documented Office for iOS \
            behaviour after the sign-in:
            \(SimulationScenario.allCases.map { "  \($0.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))
              all             every scenario above in this order, each with its own sign-in, then one summary line per scenario

            Any WOPI host: with --access-token the sign-in is skipped and the WOPISrc is taken from the \
            invoke URI, so the file scenarios run against a host that has no bootstrapper or OAuth server \
            (browse and token-refresh need them and are skipped by --scenario all):
              wopi simulate 'ms-word:ofe|u|https://wopi.contoso.com/wopi/files/F1|d|Contoso|e|U1|n|a.docx|a|App' \\
                --access-token "$TOKEN" --scenario all

            Browser editors (--client office-web or collabora): plays Office for the web or Collabora Online \
            against the file at --wopi-src with --access-token, or comes in through --host-page (the page \
            that opens the file in the editor, read as a browser reads it; --host-page-cookie is the Cookie \
            header of a signed-in browser) and takes the WOPISrc and token from the form the page posts to \
            the editor. No invoke URI, bootstrapper or scenario:
            \(WebClientProfile.allCases.map { "  \($0.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))
              wopi simulate --client collabora --wopi-src https://wopi.contoso.com/wopi/files/F1 --access-token "$TOKEN"

            Exit status: 0 when every step passed (or a scenario does not apply to the host, which its \
            line says), 1 at the first step whose answer Office would not accept (its name and the host's \
            answer on stderr; with all, when any scenario failed), 2 for invalid input.
            """
    )

    @Argument(help: ArgumentHelp("The invoke URI, raw (ms-word:ofe|u|…) or percent-encoded. Quote it for the shell. Not with --client.", valueName: "uri"))
    var uri: String?

    @Option(help: ArgumentHelp("The provider's bootstrapper URL, e.g. https://contoso.com/wopibootstrapper. Required unless --access-token is given.", valueName: "url"))
    var bootstrapper: String?

    @Option(name: .customLong("scenario"), help: ArgumentHelp("The scenario to play: \(ScenarioChoice.allValueStrings.joined(separator: ", ")). Default: open-edit-save.", valueName: "name"))
    var scenarioChoice: ScenarioChoice?

    private var scenario: ScenarioChoice { scenarioChoice ?? .one(.openEditSave) }

    @Option(help: ArgumentHelp("Play a browser editor instead of Office for iOS: \(WebClientProfile.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "name"))
    var client: WebClientProfile?

    @Option(name: .customLong("wopi-src"), help: ArgumentHelp("With --client: the file's WOPISrc (without access_token).", valueName: "url"))
    var wopiSrc: String?

    @Option(name: .customLong("host-page"), help: ArgumentHelp(
        "With --client: the host page that opens the file in the editor, e.g. https://contoso.com/open/F1?action=edit&client=collabora; "
            + "the WOPISrc and token come from its form.", valueName: "url"))
    var hostPage: String?

    @Option(name: .customLong("host-page-cookie"), help: ArgumentHelp("The Cookie header a signed-in browser sends with the host page request.",
                                                                      valueName: "cookie"))
    var hostPageCookie: String?

    @Option(name: .customLong("access-token"), help: ArgumentHelp(
        "A WOPI access token for the invoke URI's WOPISrc: skips the sign-in, for hosts without a bootstrapper or OAuth server.",
        valueName: "token"))
    var accessToken: String?

    @Option(help: "The user name typed into the web sign-in page (with --password).")
    var username: String?

    @Option(help: "The password typed into the web sign-in page (with --username).")
    var password: String?

    @Option(name: .customLong("app-signin-command"), help: ArgumentHelp(
        "Your app, \"installed\": a shell command that answers Office's app-to-app sign-in request.",
        discussion: "Run with the request URL as its last argument; the last line of its stdout is the answer URL.",
        valueName: "command"))
    var appSigninCommand: String?

    @Option(name: .customLong("replace-with"), help: ArgumentHelp(
        "In edit mode, save this file's bytes as the new content. Without it the simulator makes a deterministic change "
            + "(for Office documents it appends a line to the ZIP archive comment, so they still open).",
        valueName: "file"))
    var replaceWith: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp(
        "The client_id Office is registered with at your OAuth server. Default: $WOPI_OFFICE_CLIENT_ID, the variable `wopi serve` reads, else \(OfficeClientRegistration.defaultClientID).",
        valueName: "id"))
    var clientID: String?

    @Option(name: .customLong("client-secret"), help: ArgumentHelp(
        "The client_secret Office presents at your token endpoint. Default: $WOPI_OFFICE_CLIENT_SECRET, else \(OfficeClientRegistration.defaultClientSecret).",
        valueName: "secret"))
    var clientSecret: String?

    @Option(name: .customLong("redirect-uri"), help: ArgumentHelp(
        "The redirect_uri of the web sign-in; the final 302 must point here. Default: $WOPI_OFFICE_REDIRECT_URI, else \(OfficeClientRegistration.defaultRedirectURI).",
        valueName: "uri"))
    var redirectURI: String?

    /// Office's registration: options first, then the environment variables `wopi serve` reads, so one
    /// environment configures both sides, then the documented defaults.
    private var registration: (clientID: String, clientSecret: String, redirectURI: String) {
        let environment = ProcessInfo.processInfo.environment
        return (clientID ?? environment["WOPI_OFFICE_CLIENT_ID"] ?? OfficeClientRegistration.defaultClientID,
                clientSecret ?? environment["WOPI_OFFICE_CLIENT_SECRET"] ?? OfficeClientRegistration.defaultClientSecret,
                redirectURI ?? environment["WOPI_OFFICE_REDIRECT_URI"] ?? OfficeClientRegistration.defaultRedirectURI)
    }

    @Flag(help: "Print one JSON object per step instead of text lines.")
    var json = false

    @OptionGroup var requests: HostRequestOptions

    func validate() throws {
        if client != nil { return try validateWebClient() }
        if wopiSrc != nil || hostPage != nil || hostPageCookie != nil {
            throw ValidationError("--wopi-src, --host-page and --host-page-cookie go with --client")
        }
        guard uri != nil else { throw ValidationError("give the invoke URI (or --client to play a browser editor)") }
        _ = try invokeURI()
        if let accessToken {
            guard !accessToken.isEmpty, accessToken.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
                throw ValidationError("--access-token must be a non-empty token without spaces")
            }
            if case .one(let chosen) = scenario, chosen.needsSignIn {
                throw ValidationError("--scenario \(chosen.rawValue) needs the bootstrapper and a sign-in; it cannot run with --access-token")
            }
            if bootstrapper != nil || username != nil || password != nil || appSigninCommand != nil {
                throw ValidationError("--access-token skips the sign-in; leave out --bootstrapper, --username, --password and --app-signin-command")
            }
            return try validateReplacement()
        }
        guard bootstrapper != nil else { throw ValidationError("give --bootstrapper (or --access-token to skip the sign-in)") }
        _ = try bootstrapperURL()
        switch (username, password) {
        case (nil, nil): break
        case (_?, nil): throw ValidationError("--username needs --password")
        case (nil, _?): throw ValidationError("--password needs --username")
        default: break
        }
        if username == nil, appSigninCommand == nil {
            throw ValidationError("give --username and --password for the web sign-in, or --app-signin-command for app-to-app sign-in")
        }
        if let command = appSigninCommand, command.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--app-signin-command is empty")
        }
        try validateReplacement()
        guard let redirect = URL(string: registration.redirectURI), redirect.scheme != nil, redirect.host != nil else {
            throw ValidationError("--redirect-uri '\(registration.redirectURI)' is not an absolute URL")
        }
    }

    private func validateWebClient() throws {
        if uri != nil || scenarioChoice != nil || bootstrapper != nil || username != nil || password != nil || appSigninCommand != nil {
            throw ValidationError("--client plays a browser editor: leave out the invoke URI, --scenario, --bootstrapper, --username, --password and --app-signin-command")
        }
        if let wopiSrc {
            guard let url = URLComponents(string: wopiSrc), url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false,
                  url.queryItems?.contains(where: { $0.name == "access_token" }) != true else {
                throw ValidationError("--wopi-src '\(wopiSrc)' is not an http(s) WOPISrc (without access_token; give that with --access-token)")
            }
        }
        if let hostPage {
            guard let url = URL(string: hostPage), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--host-page '\(hostPage)' is not an http(s) URL")
            }
            if accessToken != nil { throw ValidationError("--host-page gives the editor its token; leave out --access-token") }
        } else {
            guard wopiSrc != nil, accessToken != nil else { throw ValidationError("--client needs --wopi-src and --access-token, or --host-page") }
            if hostPageCookie != nil { throw ValidationError("--host-page-cookie goes with --host-page") }
        }
        if let accessToken, accessToken.isEmpty || !accessToken.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) {
            throw ValidationError("--access-token must be a non-empty token without spaces")
        }
        if let hostPageCookie, hostPageCookie.isEmpty || hostPageCookie.contains(where: \.isNewline) {
            throw ValidationError("--host-page-cookie must be a non-empty Cookie header value on one line")
        }
        try validateReplacement()
    }

    private func validateReplacement() throws {
        if let path = replaceWith, !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("--replace-with '\(path)' is not a readable file")
        }
    }

    func run() async throws {
        var replacement: Data?
        if let path = replaceWith {
            do { replacement = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw ValidationError("--replace-with '\(path)' cannot be read: \(error.localizedDescription)")
            }
        }
        if let client {
            let options = WebClientSimulationOptions(client: client, wopiSrc: wopiSrc.flatMap(URL.init(string:)), accessToken: accessToken,
                                                     hostPage: hostPage.flatMap(URL.init(string:)), hostPageCookie: hostPageCookie,
                                                     replacementContent: replacement)
            let outcome = try await play { transport, onStep throws(SimulationFailure) in
                try await WebClientSimulator(options: options, transport: transport).run(onStep: onStep)
            }
            if outcome.isFailure { throw ExitCode(1) }
            return
        }
        let options = SimulationOptions(
            invokeURI: try invokeURI(), bootstrapperURL: bootstrapper == nil ? nil : try bootstrapperURL(),
            webCredentials: username.flatMap { user in password.map { SimulationOptions.WebCredentials(username: user, password: $0) } },
            installedApp: appSigninCommand.map { ShellAppSignInLauncher(command: $0) },
            registration: OfficeClientRegistration(clientID: registration.clientID, clientSecret: registration.clientSecret,
                                                   redirectURI: registration.redirectURI),
            replacementContent: replacement, accessToken: accessToken)
        switch scenario {
        case .one(let chosen):
            var single = options
            single.scenario = chosen
            if try await play(single).isFailure { throw ExitCode(1) }
        case .all:
            var outcomes: [(SimulationScenario, Outcome)] = []
            for chosen in SimulationScenario.playOrder {
                var each = options
                each.scenario = chosen
                Self.write(json ? Self.jsonLine(ScenarioJSON(scenario: chosen.rawValue, event: "start", detail: chosen.summary))
                           : "=== \(chosen.rawValue): \(chosen.summary)")
                outcomes.append((chosen, try await play(each)))
            }
            for (chosen, outcome) in outcomes {
                Self.write(json ? Self.jsonLine(ScenarioJSON(scenario: chosen.rawValue, event: "summary", outcome: outcome.word, detail: outcome.detail))
                           : "scenario \(chosen.rawValue): \(outcome.word)\(outcome.detail.isEmpty ? "" : " (\(outcome.detail))")")
            }
            if outcomes.contains(where: { $0.1.isFailure }) { throw ExitCode(1) }
        }
    }

    /// How one scenario ended, for `--scenario all`'s summary.
    private enum Outcome {
        case passed(Int)
        case notApplicable(String)
        case failed(String)

        var isFailure: Bool {
            if case .failed = self { return true }
            return false
        }

        var word: String {
            switch self {
            case .passed: "passed"
            case .notApplicable: "skipped"
            case .failed: "FAILED"
            }
        }

        var detail: String {
            switch self {
            case .passed(let steps): "\(steps) steps"
            case .notApplicable(let reason): reason
            case .failed(let reason): reason
            }
        }
    }

    /// Plays one scenario, printing its steps; failures also go to stderr.
    private func play(_ options: SimulationOptions) async throws -> Outcome {
        try await play { transport, onStep throws(SimulationFailure) in
            try await OfficeSimulator(options: options, transport: transport).run(onStep: onStep)
        }
    }

    /// Runs one simulated session through a fresh transport, printing its steps; failures also go to stderr.
    private func play(
        _ session: @escaping @Sendable (any HTTPTransport, @escaping @Sendable (SimulationStep) -> Void) async throws(SimulationFailure) -> SimulationResult
    ) async throws -> Outcome {
        let json = self.json
        let requests = self.requests.limits
        let outcome: Result<SimulationResult, SimulationFailure> = try await requests.withTransport { transport in
            do throws(SimulationFailure) {
                return .success(try await session(transport) { step in
                    // The passback line is printed with its URI once the run ends; failures by the catch below.
                    guard step.outcome != .failed, !(step.name == .passback && step.outcome == .passed) else { return }
                    Self.write(Self.line(for: step, json: json))
                })
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            if let reason = result.notApplicable {
                // The skipped step's line was printed as it came.
                return .notApplicable(reason)
            }
            if let passback = result.passback, let step = result.steps.last(where: { $0.name == .passback }) {
                if json {
                    Self.write(Self.jsonLine(StepJSON(step: step, passback: passback.string)))
                } else {
                    Self.write(Self.line(for: step, json: false))
                    Self.write(passback.string)
                }
            }
            return .passed(result.steps.count)
        case .failure(let failure):
            let step = SimulationStep(name: failure.step, outcome: .failed, detail: failure.reason)
            Self.write(json ? Self.jsonLine(StepJSON(step: step, failure: failure)) : Self.line(for: step, json: false))
            var message = "wopi: simulate: \(failure.step.title) failed: \(failure.reason)\n"
            if let answer = failure.answer { message += "  host answered: \(answer)\n" }
            // What the failed session could not put back, said once, at the end of its lines.
            for leftover in failure.leftovers {
                if !json { Self.write("left on the host: \(leftover)") }
                message += "  left on the host: \(leftover)\n"
            }
            Console.write(Console.redact(message), to: .standardError)
            return .failed("at \(failure.step.title): \(failure.reason)")
        }
    }

    private func invokeURI() throws -> OfficeInvokeURI {
        let invoke: OfficeInvokeURI
        do { invoke = try OfficeInvokeURI(string: uri ?? "") } catch { throw ValidationError("invoke URI: \(error.description)") }
        if let problem = InvokeURICheck.problem(with: invoke) { throw ValidationError("invoke URI: \(problem)") }
        return invoke
    }

    private func bootstrapperURL() throws -> URL {
        let bootstrapper = self.bootstrapper ?? ""
        guard let url = URL(string: bootstrapper), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--bootstrapper '\(bootstrapper)' is not an http(s) URL")
        }
        return url
    }

    /// Writes one line to stdout at once, so a person (or a pipe) sees each step as it ends.
    private static func write(_ line: String) {
        Console.line(line)
    }

    private static func line(for step: SimulationStep, json: Bool) -> String {
        if json { return jsonLine(StepJSON(step: step)) }
        let mark = switch step.outcome {
        case .passed: "[ok]  "
        case .skipped: "[skip]"
        case .failed: "[FAIL]"
        }
        return "\(mark) \(step.name.title): \(step.detail)"
    }

    private static func jsonLine(_ object: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A `--scenario all` line with `--json`: the start of a scenario, or its summary.
    private struct ScenarioJSON: Encodable {
        let scenario: String
        let event: String
        var outcome: String?
        let detail: String
    }

    /// One `--json` line.
    private struct StepJSON: Encodable {
        struct Header: Encodable { let name: String; let value: String }
        let step: String, title: String, outcome: String, detail: String
        var passback: String?
        var reason: String?
        var status: Int?
        var headers: [Header]?
        var body: String?

        init(step: SimulationStep, passback: String? = nil, failure: SimulationFailure? = nil) {
            self.step = step.name.rawValue
            title = step.name.title
            outcome = step.outcome.rawValue
            detail = step.detail
            self.passback = passback
            reason = failure?.reason
            status = failure?.answer?.status
            headers = failure?.answer?.headers.map { Header(name: $0.name, value: $0.value) }
            body = failure?.answer?.bodyExcerpt
        }
    }
}
