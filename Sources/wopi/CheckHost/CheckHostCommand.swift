import ArgumentParser
import Foundation
import OfficeSimulator
import OfficeURLScheme
import WOPICore
import WOPIValidator

/// `wopi check-host`: is a WOPI host ready for Office for iOS?
struct CheckHostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-host",
        abstract: "Check whether a WOPI host is ready for Office for iOS, and say exactly what is not.",
        discussion: """
            Point it at one Office file on the host (its WOPISrc and an access token for a user who may \
            write it). It runs, in this order:
              rules      the mobile rules: CheckFileInfo's required properties and their types, the \
            licensing properties (IsEduUser, LicenseCheckForEditIsEnabled) present and equal on the file and \
            its folder, no character Office refuses, SupportsContainers with SupportsDeleteFile, GetLock on the \
            unlocked file answering 200 with an empty X-WOPI-Lock, the bootstrapper's WWW-Authenticate header in its exact format, HTTPS for anything not on loopback; \
            and, as warnings that name Microsoft's CheckFileInfo page and never make a host "not ready", no \
            property set to null and LastModifiedTime in ISO 8601 UTC
              validator  Microsoft's validator definitions for the categories a phone needs (WopiCore, \
            OfficeNativeClient) on a .wopitest file it creates next to yours with PutRelativeFile and deletes \
            afterwards, also on SIGINT, SIGTERM or a closed stdout (a host without PutRelativeFile: name an \
            existing .wopitest file with --scratch-file and --scratch-token). The family passes only when the \
            validator really ran: a failed WopiValidatorPrereq, or a category with no case run, is "not ready"
              scenarios  every `wopi simulate` scenario that applies: with only --access-token the file \
            scenarios; with --bootstrapper and a sign-in (--username/--password or --app-signin-command) \
            all of them. Each puts the file's name and lock back; rename goes last, and what a failed \
            scenario could not put back is said once, after the checks ("left on the host: …")

            Browser editors: each --client (office-web, collabora) adds the rule \
            checkfileinfo.<client>-properties (the CheckFileInfo properties that client needs, a missing one \
            named, with the client's source) and the scenario <client>, `wopi simulate --client` played on the \
            same file. What a client treats as optional or opaque (Collabora Online: PostMessageOrigin, and \
            LastModifiedTime, kept as an opaque string) is at most a warning and never stops its scenario.

            The scenarios edit, rename and copy the file: use a test file. One line per check, then the \
            verdict line ("verdict: ready" or "verdict: not ready: …" naming every failed check; warnings \
            counted apart). --junit writes the same checks as JUnit XML for CI (one testsuite per family). \
            Tokens, codes, secrets and passwords are masked in both.

            Example:
              wopi check-host --wopi-src https://wopi.contoso.com/wopi/files/F1 --access-token "$TOKEN" \\
                --bootstrapper https://wopi.contoso.com/wopibootstrapper --username tester --password "$PW" \\
                --junit check-host.xml

            A host that gives no answer is named with the kind: connection refused, reset, timed out after \
            --timeout seconds (default 60), body over --max-body-size MiB (default 64; bodies are read up to \
            that, no further).

            Exit status: 0 ready, 1 not ready, 2 bad input. A closed stdout stops the run quietly with 1, \
            SIGINT and SIGTERM with 128 + the signal's number; the scratch file is deleted first.
            """
    )

    @Option(name: .customLong("wopi-src"), help: ArgumentHelp("The WOPISrc of an Office file on the host, e.g. https://wopi.contoso.com/wopi/files/F1.", valueName: "url"))
    var wopiSrc: String

    @Option(name: .customLong("access-token"), help: ArgumentHelp("A WOPI access token for that file, for a user who may write it.", valueName: "token"))
    var accessToken: String

    @Option(help: ArgumentHelp("The provider's bootstrapper URL: checks its challenge, and with a sign-in runs browse and token-refresh too.", valueName: "url"))
    var bootstrapper: String?

    @Option(help: "The user name for the web sign-in (with --password and --bootstrapper).")
    var username: String?

    @Option(help: "The password for the web sign-in.")
    var password: String?

    @Option(name: .customLong("app-signin-command"), help: ArgumentHelp("Your app, \"installed\": see `wopi simulate --help`.", valueName: "command"))
    var appSigninCommand: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp("Office's client_id at your OAuth server. Default: $WOPI_OFFICE_CLIENT_ID, else \(OfficeClientRegistration.defaultClientID).", valueName: "id"))
    var clientID: String?

    @Option(name: .customLong("client-secret"), help: ArgumentHelp("Office's client_secret. Default: $WOPI_OFFICE_CLIENT_SECRET, else \(OfficeClientRegistration.defaultClientSecret).", valueName: "secret"))
    var clientSecret: String?

    @Option(name: .customLong("redirect-uri"), help: ArgumentHelp("The web sign-in's redirect_uri. Default: $WOPI_OFFICE_REDIRECT_URI, else \(OfficeClientRegistration.defaultRedirectURI).", valueName: "uri"))
    var redirectURI: String?

    @Option(name: .customLong("client"), help: ArgumentHelp(
        "Also check for a browser editor: \(WebClientProfile.allCases.map(\.rawValue).joined(separator: ", ")); repeatable.", valueName: "name"))
    var clients: [WebClientProfile] = []

    @Option(help: ArgumentHelp("Write the checks as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @OptionGroup var requests: HostRequestOptions

    @Option(help: ArgumentHelp("Path to Microsoft's TestCases.xml (JsonSchemas beside it).", discussion: "Default: found as `wopi validator show` says.", valueName: "path"))
    var testcases: String?

    @Option(name: .customLong("scratch-file"), help: ArgumentHelp(
        "The WOPISrc of an existing .wopitest file to run Microsoft's validator on, for hosts without PutRelativeFile (with --scratch-token).",
        valueName: "url"))
    var scratchFile: String?

    @Option(name: .customLong("scratch-token"), help: ArgumentHelp("An access token for the --scratch-file, for a user who may write it.", valueName: "token"))
    var scratchToken: String?

    func validate() throws {
        guard let url = URLComponents(string: wopiSrc), url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false,
              url.queryItems?.contains(where: { $0.name == "access_token" }) != true else {
            throw ValidationError("--wopi-src '\(wopiSrc)' is not an http(s) WOPISrc (without access_token; give that with --access-token)")
        }
        guard !accessToken.isEmpty, accessToken.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ValidationError("--access-token must be a non-empty token without spaces")
        }
        if let bootstrapper {
            guard let url = URL(string: bootstrapper), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--bootstrapper '\(bootstrapper)' is not an http(s) URL")
            }
        }
        if (username == nil) != (password == nil) { throw ValidationError("--username and --password go together") }
        if bootstrapper == nil, username != nil || appSigninCommand != nil {
            throw ValidationError("--username/--password and --app-signin-command need --bootstrapper")
        }
        if let junit { try JUnitReport.checkWritable(junit) }
        if (scratchFile == nil) != (scratchToken == nil) { throw ValidationError("--scratch-file and --scratch-token go together") }
        if let scratchFile, let scratchToken {
            guard let url = URLComponents(string: scratchFile), url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false,
                  url.queryItems?.contains(where: { $0.name == "access_token" }) != true else {
                throw ValidationError("--scratch-file '\(scratchFile)' is not an http(s) WOPISrc (without access_token; give that with --scratch-token)")
            }
            guard !scratchToken.isEmpty, scratchToken.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw ValidationError("--scratch-token must be a non-empty token without spaces")
            }
        }
        _ = try DefinitionsLookup.locate(testcases: testcases)
    }

    func run() async throws {
        let definitions = try DefinitionsLookup.load(testcases: testcases)
        let report = CheckReport()
        let environment = ProcessInfo.processInfo.environment
        let registration = OfficeClientRegistration(
            clientID: clientID ?? environment["WOPI_OFFICE_CLIENT_ID"] ?? OfficeClientRegistration.defaultClientID,
            clientSecret: clientSecret ?? environment["WOPI_OFFICE_CLIENT_SECRET"] ?? OfficeClientRegistration.defaultClientSecret,
            redirectURI: redirectURI ?? environment["WOPI_OFFICE_REDIRECT_URI"] ?? OfficeClientRegistration.defaultRedirectURI)
        let signIn: HostChecks.SignIn? = bootstrapper.flatMap(URL.init(string:)).flatMap { url in
            let web = username.flatMap { user in password.map { SimulationOptions.WebCredentials(username: user, password: $0) } }
            let app = appSigninCommand.map { ShellAppSignInLauncher(command: $0) }
            return HostChecks.SignIn(bootstrapperURL: url, webCredentials: web, installedApp: app, registration: registration)
        }
        let scratch = scratchFile.flatMap { file in scratchToken.map { HostChecks.ScratchFile(wopiSrc: file, accessToken: $0) } }
        let checks = HostChecks(wopiSrc: wopiSrc, accessToken: accessToken, bootstrapper: bootstrapper, signIn: signIn,
                                definitions: definitions, scratchFile: scratch, clients: clients, requests: requests.limits)
        let leftovers = CheckReport()
        try await Interruption.run {
            try await checks.run(report: { check in
                report.add(check)
                Console.line(Self.line(for: check))
            }, leftover: { leftovers.addLeftover($0) })
        }
        // What a failed scenario could not put back, once, where the run ends.
        for leftover in leftovers.leftovers { Console.line("left on the host: \(leftover)") }
        let all = report.checks
        let failed = all.filter { $0.outcome == .failed }
        let verdict = Self.verdict(all)
        if let junit { try JUnitReport(checks: all, redact: Console.redact).write(to: junit) }
        Console.line(verdict)
        if !failed.isEmpty { throw ExitCode(1) }
    }

    /// `verdict: ready (N passed, N skipped)` or `verdict: not ready: N of M checks failed: <every failed check>`;
    /// warnings are counted apart and named, and never make a host "not ready".
    static func verdict(_ checks: [ReadinessCheck]) -> String {
        func names(_ outcome: ReadinessCheck.Outcome) -> [String] {
            checks.filter { $0.outcome == outcome }.map { "\($0.suite) \($0.name)" }
        }
        let failed = names(.failed)
        let warnings = names(.warning)
        let warningText = warnings.isEmpty ? "" : "; \(warnings.count) warning\(warnings.count == 1 ? "" : "s"): " + warnings.joined(separator: ", ")
        if failed.isEmpty {
            return "verdict: ready (\(names(.passed).count) passed, \(names(.skipped).count) skipped)" + warningText
        }
        return "verdict: not ready: \(failed.count) of \(checks.count) checks failed: " + failed.joined(separator: ", ") + warningText
    }

    static func line(for check: ReadinessCheck) -> String {
        let mark = switch check.outcome {
        case .passed: "[ok]  "
        case .skipped: "[skip]"
        case .warning: "[warn]"
        case .failed: "[FAIL]"
        }
        return "\(mark) \(check.suite) \(check.name): \(check.detail)"
    }
}
