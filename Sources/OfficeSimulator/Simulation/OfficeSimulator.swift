import Foundation
import OfficeURLScheme
import WOPICore
import WOPIHTTPClient

/// A WOPI client that behaves like Office for iOS, step for step, so a provider can run the whole
/// story of its integration on Linux (operational_flows.rst, apptoapp.rst, bootstrapper.rst):
///
/// 1. check the invoke URI; 2. read the bootstrapper's 401 challenge; 3. sign in through the
/// provider's app or its web pages; 4. exchange the code (at `tk` if given, sending `sc` back as
/// `X-WOPI-SessionContext`), Bootstrap, GetNewAccessToken for the WOPISrc; 5. CheckFileInfo,
/// GetLock, RefreshLock with a made-up lock (must fail), Lock, GetFile; 6. in edit mode PutFile
/// with the lock, CheckFileInfo (Version changed), Unlock; 7. the passback for `|p|`.
///
/// That is the ``SimulationScenario/openEditSave`` scenario; ``SimulationOptions/scenario`` picks
/// another documented behaviour (browse, create, save-as, rename, conflict, token-refresh,
/// upload-pending), and ``SimulationOptions/accessToken`` skips steps 2–4 for hosts without
/// a bootstrapper.
///
/// The first answer Office would not accept stops the session with a ``SimulationFailure`` naming
/// the step and carrying the host's answer; any lock the simulator still holds is then released.
///
/// ```swift
/// try await AsyncHTTPClientTransport.withTransport { transport in
///     let simulator = OfficeSimulator(options: options, transport: transport)
///     let result = try await simulator.run { step in print(step.name.title, step.detail) }
///     print(result.passback?.string ?? "")
/// }
/// ```
public struct OfficeSimulator: Sendable {
    /// What to simulate.
    public let options: SimulationOptions
    let transport: any HTTPTransport

    /// Creates a simulator sending its requests through `transport`.
    public init(options: SimulationOptions, transport: any HTTPTransport) {
        self.options = options
        self.transport = transport
    }

    /// Runs the session, reporting each step through `onStep` as soon as it ends (a failed step
    /// is reported too, just before the error is thrown).
    ///
    /// - Throws: ``SimulationFailure`` at the first step whose answer Office would not accept.
    public func run(onStep: @escaping @Sendable (SimulationStep) -> Void = { _ in }) async throws(SimulationFailure) -> SimulationResult {
        let restoring = options.putsContentBack ? ContentRestoringTransport(transport, watching: URL(string: options.invokeURI.documentURL)) : nil
        let fileName = options.invokeURI.fileName.map { "'\($0)'" }
        var session = SimulationSession(simulator: restoring.map { OfficeSimulator(options: options, transport: $0) } ?? self, onStep: onStep)
        do throws(SimulationFailure) {
            var result = try await session.run()
            if let left = await restoring?.putBack(naming: fileName) { result.leftovers.append(left) }
            return result
        } catch {
            onStep(SimulationStep(name: error.step, outcome: .failed, detail: error.description))
            // Leave the host as it was found, so the next scenario (or a person) is not met by a stale
            // lock, a new name or another content; what cannot be put back is said.
            var failure = error
            failure.leftovers = await session.restore()
            if let left = await restoring?.putBack(naming: fileName) { failure.leftovers.append(left) }
            throw failure
        }
    }

    /// The URL without its `access_token`, for messages. The parameter goes whole: a placeholder value
    /// would run into the text after it, which the secret masking of the output then swallows.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), let items = components.queryItems else {
            return url.absoluteString
        }
        let kept = items.filter { $0.name != "access_token" }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.string ?? url.absoluteString
    }
}

/// The state of one run; the scenarios live in extensions, one file each (Sources/OfficeSimulator/Scenarios).
struct SimulationSession: SimulationStepping {
    let simulator: OfficeSimulator
    let onStep: @Sendable (SimulationStep) -> Void
    var steps: [SimulationStep] = []
    /// Locks the simulator took and has not released yet, Office's own and the "other device's".
    var heldLocks: [(wopi: WOPIRequests, lock: String)] = []
    /// A rename not yet undone: the file's first name, the name it has now and the lock it was renamed under.
    var pendingRename: (wopi: WOPIRequests, originalName: String, currentName: String, lock: String)?

    init(simulator: OfficeSimulator, onStep: @escaping @Sendable (SimulationStep) -> Void) {
        self.simulator = simulator
        self.onStep = onStep
    }

    var transport: any HTTPTransport { simulator.transport }
    var options: SimulationOptions { simulator.options }
    var invoke: OfficeInvokeURI { options.invokeURI }
    var isEditing: Bool { invoke.command == .edit }

    /// After a failed step: renames the file back and releases every lock still held, and returns
    /// what could not be put back, one sentence per file.
    func restore() async -> [String] {
        var nameLeft: String?
        if let rename = pendingRename {
            let stem = Self.split(rename.originalName).stem
            let answer = try? await simulator.transport.send(rename.wopi.renameFile(to: stem, lock: rename.lock))
            if answer?.status != 200 { nameLeft = rename.currentName }
        }
        var locksLeft: [(WOPIRequests, String)] = []
        for (wopi, lock) in heldLocks {
            let answer = try? await simulator.transport.send(wopi.lockOperation("UNLOCK", lock: lock))
            if answer?.status != 200 { locksLeft.append((wopi, lock)) }
        }
        var leftovers: [String] = []
        if let nameLeft, let rename = pendingRename {
            let lock = locksLeft.first { $0.0.wopiSrc == rename.wopi.wopiSrc }?.1
            locksLeft.removeAll { $0.0.wopiSrc == rename.wopi.wopiSrc }
            leftovers.append("'\(rename.originalName)' is now named '\(nameLeft)'" + (lock.map { " and still locked by '\($0)'" } ?? "")
                + ": renaming it back failed; rename it back\(lock == nil ? "" : " and unlock it") on the host")
        }
        for (wopi, lock) in locksLeft {
            leftovers.append("\(OfficeSimulator.redacted(wopi.wopiSrc)) is still locked by '\(lock)': Unlock failed; it expires within 30 minutes")
        }
        return leftovers
    }

    /// What the sign-in (or the given token) leaves: WOPI requests for the file, and the OAuth
    /// session when there was one.
    struct Access {
        var wopi: WOPIRequests
        /// Bootstrap's `UserId`; CheckFileInfo's must equal it. `nil` with a given access token.
        var bootstrapUserID: String?
        var oauth: OAuthSession?
    }

    /// The OAuth side of a signed-in session, for the scenarios that go back to the bootstrapper.
    struct OAuthSession {
        var bootstrapperURL: URL
        var tokenEndpoint: URL
        var accessToken: String
        var refreshToken: String?
        var grant: SignInGrant
    }

    mutating func run() async throws(SimulationFailure) -> SimulationResult {
        // 1. The invoke URI.
        if let problem = InvokeURICheck.problem(with: invoke) { throw SimulationFailure(step: .invokeURI, reason: problem) }
        guard let wopiSrc = URL(string: invoke.documentURL) else {
            throw SimulationFailure(step: .invokeURI, reason: "|u| '\(invoke.documentURL)' is not a URL")
        }
        report(.invokeURI, "\(invoke.app.displayName) opens '\(invoke.fileName ?? "")' for \(isEditing ? "editing" : "viewing"); WOPISrc \(invoke.documentURL); user \(invoke.user ?? "")")
        if options.scenario.needsSignIn, options.accessToken != nil {
            return notApplicable("\(options.scenario.rawValue) needs the bootstrapper and OAuth sign-in; it cannot run with only an access token")
        }
        if [SimulationScenario.conflict, .uploadPending, .rename, .create].contains(options.scenario), !isEditing {
            return notApplicable("\(options.scenario.rawValue) edits the file; the invoke URI opens it for viewing (ofv)")
        }

        // 2.–4. Sign-in and tokens, or the given token.
        let access = try await obtainAccess(wopiSrc)

        switch options.scenario {
        case .openEditSave: return try await openEditSave(access)
        case .browse: return try await browse(access)
        case .create: return try await create(access)
        case .saveAs: return try await saveAs(access)
        case .rename: return try await rename(access)
        case .conflict: return try await conflict(access)
        case .tokenRefresh: return try await tokenRefresh(access)
        case .uploadPending: return try await uploadPending(access)
        }
    }

    /// The result of a scenario that does not apply to this host or this invoke URI.
    mutating func notApplicable(_ reason: String) -> SimulationResult {
        report(.scenarioApplies, .skipped, reason)
        return SimulationResult(scenario: options.scenario, steps: steps, notApplicable: reason, versionBefore: nil, versionAfter: nil,
                                savedContent: nil, passback: nil)
    }

    /// The bootstrapper challenge, sign-in, token exchange, Bootstrap and GET_NEW_ACCESS_TOKEN; or
    /// nothing of that when an access token was given.
    mutating func obtainAccess(_ wopiSrc: URL) async throws(SimulationFailure) -> Access {
        if let token = options.accessToken {
            report(.givenAccessToken, "sign-in skipped; using the given access token for \(invoke.documentURL)")
            return Access(wopi: WOPIRequests(wopiSrc: wopiSrc, accessToken: token), bootstrapUserID: nil, oauth: nil)
        }
        guard let bootstrapperURL = options.bootstrapperURL else {
            throw SimulationFailure(step: .bootstrapperChallenge, reason: "no bootstrapper URL and no access token: Office cannot sign in")
        }
        let challenge = try await readChallenge(bootstrapperURL)
        let grant = try await signIn(challenge)
        let (oauthToken, refreshToken, endpoint) = try await exchange(grant, challenge)
        let oauth = OAuthSession(bootstrapperURL: bootstrapperURL, tokenEndpoint: endpoint, accessToken: oauthToken,
                                 refreshToken: refreshToken, grant: grant)
        let bootstrapUserID = try await bootstrap(oauth)
        let wopiToken = try await newAccessToken(oauth, wopiSrc: invoke.documentURL, step: .getNewAccessToken)
        return Access(wopi: WOPIRequests(wopiSrc: wopiSrc, accessToken: wopiToken), bootstrapUserID: bootstrapUserID, oauth: oauth)
    }

    /// Today's story: open, lock, save, unlock, passback.
    mutating func openEditSave(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        let wopi = access.wopi
        let (info, lock, content) = try await open(access)

        // 6. Save and close.
        var versionAfter: String?
        var saved: Data?
        if isEditing {
            let newContent = options.replacementContent ?? ContentEdit.edited(content)
            versionAfter = try await save(wopi, newContent, lock: lock, previous: info, bootstrapUserID: access.bootstrapUserID)
            saved = newContent
        } else {
            for name in [SimulationStep.Name.putFile, .checkFileInfoAfterSave, .unlock] {
                report(name, .skipped, "view mode: Office does not write")
            }
        }

        // 7. The passback.
        let passback = reportPassback(uploadPending: false)
        return SimulationResult(scenario: options.scenario, steps: steps, versionBefore: info.version, versionAfter: versionAfter,
                                savedContent: saved, passback: passback)
    }

    /// Office's open sequence: CheckFileInfo, GetLock and the RefreshLock probe when supported, Lock
    /// in edit mode, GetFile. Returns what CheckFileInfo said, the lock Office holds and the content.
    /// `checked`: CheckFileInfo's answer when the scenario already asked for it.
    mutating func open(_ access: Access, checked: CheckFileInfoSummary? = nil) async throws(SimulationFailure) -> (CheckFileInfoSummary, String, Data) {
        let wopi = access.wopi
        let info: CheckFileInfoSummary
        if let checked { info = checked } else { info = try await checkFileInfo(wopi, step: .checkFileInfo, bootstrapUserID: access.bootstrapUserID) }
        if isEditing, let blocker = info.editingBlocker {
            throw SimulationFailure(step: .checkFileInfo, reason: "the file was opened for editing but \(blocker), so Office would open it read-only")
        }
        report(.checkFileInfo, "'\(info.baseFileName)', \(info.size) bytes, Version \(info.version), UserId \(info.userID)\(info.userCanWrite ? ", writable" : ", read-only")")
        if info.supportsGetLock {
            try await getLock(wopi)
            try await refreshLockProbe(wopi)
        } else {
            report(.getLock, .skipped, "CheckFileInfo does not set SupportsGetLock")
            report(.refreshLockProbe, .skipped, "CheckFileInfo does not set SupportsGetLock")
        }
        let lock = "WOPIKit-simulator-" + UUID().uuidString
        if isEditing {
            try await takeLock(wopi, lock)
        } else {
            report(.lock, .skipped, "view mode: Office takes no lock")
        }
        let content = try await getFile(wopi, info)
        return (info, lock, content)
    }

    /// PutFile with the lock, CheckFileInfo (the Version must change, the Size must match), Unlock.
    /// Returns the new Version.
    mutating func save(_ wopi: WOPIRequests, _ content: Data, lock: String, previous info: CheckFileInfoSummary,
                       bootstrapUserID: String?, putStep: SimulationStep.Name = .putFile) async throws(SimulationFailure) -> String {
        try await putFile(wopi, content, lock: lock, previousVersion: info.version, step: putStep)
        let after = try await checkFileInfo(wopi, step: .checkFileInfoAfterSave, bootstrapUserID: bootstrapUserID)
        guard after.version != info.version else {
            throw SimulationFailure(step: .checkFileInfoAfterSave, reason: "Version is still '\(after.version)' after PutFile; it must change on every save")
        }
        guard after.size == Int64(content.count) else {
            throw SimulationFailure(step: .checkFileInfoAfterSave, reason: "Size is \(after.size) after saving \(content.count) bytes")
        }
        report(.checkFileInfoAfterSave, "Version \(info.version) → \(after.version), \(after.size) bytes")
        try await unlock(wopi, lock)
        return after.version
    }

    /// Reports the passback Office sends on the back arrow, when the invoke URI has `|p|`.
    mutating func reportPassback(uploadPending: Bool, step: SimulationStep.Name = .passback) -> OfficePassback? {
        let passback = OfficePassback(returningFrom: invoke, uploadPending: uploadPending)
        if let passback {
            let detail = "Office returns to '\(passback.scheme):' with uploadPending \(uploadPending ? "yes" : "no")\(passback.context.map { " and context '\($0)'" } ?? "")"
            report(step, step == .passback ? detail : "\(detail): \(passback.string)")
        } else {
            report(step, .skipped, "the invoke URI has no |p|, so Office does not return to the app")
        }
        return passback
    }

    // MARK: Sign-in and tokens

    mutating func readChallenge(_ bootstrapperURL: URL) async throws(SimulationFailure) -> BootstrapperChallenge {
        let request = SimulatorRequest(method: "GET", url: bootstrapperURL, headers: [SimulatorHeader("User-Agent", WOPIRequests.userAgent)])
        let response = try await send(request, .bootstrapperChallenge)
        guard response.status == 401 else {
            throw SimulationFailure(step: .bootstrapperChallenge, reason: "an unauthenticated call must answer 401", response: response)
        }
        let bearer = response.headers(named: "WWW-Authenticate").filter { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("bearer") }
        guard bearer.count == 1, let value = bearer.first else {
            throw SimulationFailure(step: .bootstrapperChallenge,
                                    reason: "expected exactly one WWW-Authenticate: Bearer header, found \(bearer.count)", response: response)
        }
        let challenge: BootstrapperChallenge
        do { challenge = try BootstrapperChallenge(headerValue: value) } catch {
            throw SimulationFailure(step: .bootstrapperChallenge, reason: "\(error)", response: response)
        }
        let schemes = challenge.iOSURLSchemes
        report(.bootstrapperChallenge, "authorization_uri \(challenge.authorizationURI), tokenIssuance_uri \(challenge.tokenIssuanceURI), iOS schemes \(schemes.isEmpty ? "none" : schemes.joined(separator: ", "))")
        return challenge
    }

    mutating func signIn(_ challenge: BootstrapperChallenge) async throws(SimulationFailure) -> SignInGrant {
        if let app = options.installedApp, let scheme = challenge.iOSURLSchemes.first {
            let (grant, detail) = try await AppSignIn(app: app, registration: options.registration, officeApp: invoke.app).run(scheme: scheme)
            report(.appSignIn, detail)
            return grant
        }
        guard let credentials = options.webCredentials else {
            throw SimulationFailure(step: .appSignIn,
                                    reason: "the bootstrapper lists no iOS URL scheme, so Office falls back to the web sign-in, but no user name and password were given")
        }
        if options.installedApp != nil {
            report(.appSignIn, .skipped, "the bootstrapper lists no iOS URL scheme; Office falls back to the web sign-in")
        }
        let (grant, detail) = try await WebSignIn(transport: simulator.transport, registration: options.registration,
                                                  credentials: credentials).run(challenge)
        report(.webSignIn, detail)
        return grant
    }

    /// RFC 6749 §4.1.3–§4.1.4 and tokenissuance.rst: a form POST with the client's credentials,
    /// answered by JSON with `access_token`, `token_type` bearer and `expires_in` in seconds.
    /// Returns the OAuth access token, the refresh token when one was given, and the endpoint used.
    mutating func exchange(_ grant: SignInGrant, _ challenge: BootstrapperChallenge) async throws(SimulationFailure) -> (String, String?, URL) {
        let endpoint = grant.tokenEndpoint ?? challenge.tokenIssuanceURI
        guard let url = URL(string: endpoint), url.scheme == "http" || url.scheme == "https" else {
            throw SimulationFailure(step: .tokenExchange, reason: "the token endpoint '\(endpoint.prefix(200))' is not an http(s) URL")
        }
        var form: [(name: String, value: String)] = [("grant_type", "authorization_code"), ("code", grant.code)]
        if let redirect = grant.redirectURI { form.append(("redirect_uri", redirect)) }
        form += [("client_id", options.registration.clientID), ("client_secret", options.registration.clientSecret)]
        var headers = [SimulatorHeader("Content-Type", "application/x-www-form-urlencoded"), SimulatorHeader("Accept", "application/json"),
                       SimulatorHeader("User-Agent", WOPIRequests.userAgent)]
        if let sc = grant.sessionContext { headers.append(SimulatorHeader("X-WOPI-SessionContext", sc)) }
        let response = try await send(SimulatorRequest(method: "POST", url: url, headers: headers, body: Data(FormEncoding.encode(form).utf8)), .tokenExchange)
        guard response.status == 200 else {
            throw SimulationFailure(step: .tokenExchange, reason: "the token endpoint did not answer 200", response: response)
        }
        guard response.header("Content-Type")?.lowercased().hasPrefix("application/json") == true else {
            throw SimulationFailure(step: .tokenExchange, reason: "the answer's Content-Type must be application/json (tokenissuance.rst)", response: response)
        }
        guard let object = JSONValue.object(from: response.body) else {
            throw SimulationFailure(step: .tokenExchange, reason: "the answer is not a JSON object", response: response)
        }
        guard let token = object["access_token"]?.stringValue, !token.isEmpty else {
            throw SimulationFailure(step: .tokenExchange, reason: "the answer has no access_token string", response: response)
        }
        guard let type = object["token_type"]?.stringValue, type.lowercased() == "bearer" else {
            throw SimulationFailure(step: .tokenExchange, reason: "token_type must be \"Bearer\" (RFC 6750)", response: response)
        }
        var expiry = "no expires_in"
        switch object["expires_in"] {
        case .integer(let seconds)?: expiry = seconds == 0 ? "does not expire" : "expires in \(seconds) s"
        case .string(let text)? where Int64(text) != nil: expiry = "expires in \(text) s" // the docs' own sample quotes it
        case nil: break
        case let other?: throw SimulationFailure(step: .tokenExchange, reason: "expires_in is a \(other.typeName), not a number of seconds", response: response)
        }
        let refresh = object["refresh_token"]?.stringValue != nil ? ", refresh token given" : ""
        report(.tokenExchange, "POST \(grant.tokenEndpoint != nil ? "tk " : "")\(endpoint): Bearer token, \(expiry)\(refresh)\(grant.sessionContext != nil ? "; sc sent back" : "")")
        return (token, object["refresh_token"]?.stringValue, url)
    }

    func bootstrapperHeaders(_ token: String, _ grant: SignInGrant) -> [SimulatorHeader] {
        var headers = [SimulatorHeader("Authorization", "Bearer \(token)"), SimulatorHeader("User-Agent", WOPIRequests.userAgent)]
        if let sc = grant.sessionContext { headers.append(SimulatorHeader("X-WOPI-SessionContext", sc)) }
        return headers
    }

    /// Bootstrap.rst: `{"Bootstrap": {EcosystemUrl, UserId, SignInName, [UserFriendlyName]}}`.
    mutating func bootstrap(_ oauth: OAuthSession) async throws(SimulationFailure) -> String {
        let response = try await send(SimulatorRequest(method: "GET", url: oauth.bootstrapperURL,
                                                       headers: bootstrapperHeaders(oauth.accessToken, oauth.grant)), .bootstrap)
        guard response.status == 200 else {
            throw SimulationFailure(step: .bootstrap, reason: "an authenticated Bootstrap call must answer 200", response: response)
        }
        guard let bootstrap = JSONValue.object(from: response.body)?["Bootstrap"]?.objectValue else {
            throw SimulationFailure(step: .bootstrap, reason: "the answer has no Bootstrap object", response: response)
        }
        for name in ["EcosystemUrl", "UserId", "SignInName"] where bootstrap[name]?.stringValue == nil {
            throw SimulationFailure(step: .bootstrap, reason: "Bootstrap.\(name) must be a string", response: response)
        }
        if let friendly = bootstrap["UserFriendlyName"], friendly != .null, friendly.stringValue == nil {
            throw SimulationFailure(step: .bootstrap, reason: "Bootstrap.UserFriendlyName must be a string", response: response)
        }
        let userID = bootstrap["UserId"]?.stringValue ?? ""
        report(.bootstrap, "signed in as \(bootstrap["SignInName"]?.stringValue ?? ""), UserId \(userID)")
        return userID
    }

    /// GetNewAccessToken.rst: `{"AccessTokenInfo": {AccessToken, AccessTokenExpiry (ms since the epoch)}, "Bootstrap": …}`.
    mutating func newAccessToken(_ oauth: OAuthSession, wopiSrc: String, step: SimulationStep.Name) async throws(SimulationFailure) -> String {
        let headers = bootstrapperHeaders(oauth.accessToken, oauth.grant) + [
            SimulatorHeader("X-WOPI-EcosystemOperation", "GET_NEW_ACCESS_TOKEN"), SimulatorHeader("X-WOPI-WopiSrc", wopiSrc),
        ]
        let response = try await send(SimulatorRequest(method: "POST", url: oauth.bootstrapperURL, headers: headers, body: Data()), step)
        guard response.status == 200 else {
            throw SimulationFailure(step: step, reason: "GET_NEW_ACCESS_TOKEN for the WOPISrc must answer 200", response: response)
        }
        guard let info = JSONValue.object(from: response.body)?["AccessTokenInfo"]?.objectValue else {
            throw SimulationFailure(step: step, reason: "the answer has no AccessTokenInfo object", response: response)
        }
        guard let accessToken = info["AccessToken"]?.stringValue, !accessToken.isEmpty else {
            throw SimulationFailure(step: step, reason: "AccessTokenInfo.AccessToken must be a non-empty string", response: response)
        }
        guard let expiry = info["AccessTokenExpiry"]?.integerValue else {
            throw SimulationFailure(step: step, reason: "AccessTokenInfo.AccessTokenExpiry must be a whole number (ms since the epoch)", response: response)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        guard expiry == 0 || expiry > now else {
            throw SimulationFailure(step: step,
                                    reason: "AccessTokenExpiry \(expiry) is in the past; it is an instant in ms since the epoch, not a duration", response: response)
        }
        let until = expiry == 0 ? "no expiry" : "valid until \(Date(timeIntervalSince1970: Double(expiry) / 1000).formatted(.iso8601))"
        report(step, "WOPI access token for \(wopiSrc), \(until)")
        return accessToken
    }

    // MARK: WOPI

    /// Open-edit-save and browse play Office opening files, so they hold CheckFileInfo to every rule;
    /// the other scenarios only to what they read, so they still run (and find their own defects)
    /// on a host with, say, a missing IsEduUser.
    var checkFileInfoScope: CheckFileInfoSummary.Scope {
        switch options.scenario {
        case .openEditSave, .browse: .everything
        default: .whatTheScenarioReads
        }
    }

    func checkFileInfo(_ wopi: WOPIRequests, step: SimulationStep.Name, bootstrapUserID: String?) async throws(SimulationFailure) -> CheckFileInfoSummary {
        try checkedFileInfo(try await send(wopi.checkFileInfo, step), step: step, bootstrapUserID: bootstrapUserID)
    }

    /// CheckFileInfo's answer held to the rules of ``checkFileInfoScope``.
    func checkedFileInfo(_ response: SimulatorResponse, step: SimulationStep.Name, bootstrapUserID: String?) throws(SimulationFailure) -> CheckFileInfoSummary {
        guard response.status == 200 else {
            throw SimulationFailure(step: step, reason: response.status == 404
                                        ? "CheckFileInfo answered 404: the host does not know the file (gone, renamed on a host that ties ids to names, or a wrong WOPISrc)"
                                        : "CheckFileInfo must answer 200", response: response)
        }
        switch CheckFileInfoSummary.check(response.body, expectedUserID: invoke.user, scope: checkFileInfoScope) {
        case .failure(let problem):
            throw SimulationFailure(step: step, reason: problem.reason, response: response)
        case .success(let info):
            if let bootstrapUserID, info.userID != bootstrapUserID {
                throw SimulationFailure(step: step,
                                        reason: "UserId '\(info.userID)' differs from Bootstrap's UserId '\(bootstrapUserID)' (Bootstrap.rst: they should match)",
                                        response: response)
            }
            return info
        }
    }

    /// GetLock.rst: 200 with `X-WOPI-Lock`, empty when unlocked. A lock held by another client stops an edit.
    mutating func getLock(_ wopi: WOPIRequests) async throws(SimulationFailure) {
        let response = try await send(wopi.lockOperation("GET_LOCK"), .getLock)
        let current = response.header("X-WOPI-Lock")
        switch response.status {
        case 200:
            guard let current else {
                throw SimulationFailure(step: .getLock, reason: "GetLock must return X-WOPI-Lock (empty when the file is unlocked)", response: response)
            }
            if current.isEmpty {
                report(.getLock, "not locked")
            } else if isEditing {
                throw SimulationFailure(step: .getLock, reason: "the file is locked by another client, so Office does not open it for editing", response: response)
            } else {
                report(.getLock, "locked by another client ('\(current)'); viewing only")
            }
        case 409 where isEditing:
            throw SimulationFailure(step: .getLock, reason: "GetLock answered 409: the file is locked, so Office does not open it for editing", response: response)
        case 404:
            throw SimulationFailure(step: .getLock, reason: "GetLock answered 404; on an unlocked file it must answer 200 with an empty X-WOPI-Lock (GetLock.rst)",
                                    response: response)
        default:
            throw SimulationFailure(step: .getLock, reason: "GetLock must answer 200", response: response)
        }
    }

    /// operational_flows.rst: RefreshLock with a known invalid lock must answer 409 with the
    /// current lock in `X-WOPI-Lock`; a non-empty one means the file is locked.
    mutating func refreshLockProbe(_ wopi: WOPIRequests) async throws(SimulationFailure) {
        let made = "WOPIKit-simulator-made-up-lock-" + UUID().uuidString
        let response = try await send(wopi.lockOperation("REFRESH_LOCK", lock: made), .refreshLockProbe)
        switch response.status {
        case 409:
            guard let current = response.header("X-WOPI-Lock") else {
                throw SimulationFailure(step: .refreshLockProbe,
                                        reason: "a 409 must carry the current lock in X-WOPI-Lock (empty when unlocked); it is missing", response: response)
            }
            if current.isEmpty {
                report(.refreshLockProbe, "409 as expected, X-WOPI-Lock empty: not locked")
            } else if isEditing {
                throw SimulationFailure(step: .refreshLockProbe, reason: "the file is locked by another client, so Office does not open it for editing", response: response)
            } else {
                report(.refreshLockProbe, "409, locked by another client ('\(current)'); viewing only")
            }
        case 200..<300:
            throw SimulationFailure(step: .refreshLockProbe,
                                    reason: "the host refreshed a lock nobody took (\(made)); a lock mismatch must answer 409", response: response)
        default:
            throw SimulationFailure(step: .refreshLockProbe, reason: "a lock mismatch must answer 409 with X-WOPI-Lock", response: response)
        }
    }

    mutating func takeLock(_ wopi: WOPIRequests, _ lock: String) async throws(SimulationFailure) {
        let response = try await send(wopi.lockOperation("LOCK", lock: lock), .lock)
        guard response.status == 200 else {
            let reason = response.status == 409 ? "the host refused the lock (409)" : response.status == 404 ? Self.notFound("Lock") : "Lock must answer 200"
            throw SimulationFailure(step: .lock, reason: reason, response: response)
        }
        heldLocks.append((wopi, lock))
        try requireItemVersion(response, .lock, "Lock")
        report(.lock, "locked with \(lock)")
    }

    mutating func getFile(_ wopi: WOPIRequests, _ info: CheckFileInfoSummary) async throws(SimulationFailure) -> Data {
        let response = try await send(wopi.getFile, .getFile)
        guard response.status == 200 else {
            throw SimulationFailure(step: .getFile, reason: "GetFile must answer 200", response: response)
        }
        let itemVersion = response.header("X-WOPI-ItemVersion")
        if let itemVersion, itemVersion != info.version {
            throw SimulationFailure(step: .getFile, reason: "X-WOPI-ItemVersion '\(itemVersion)' is not CheckFileInfo's Version '\(info.version)'", response: response)
        }
        guard Int64(response.body.count) == info.size else {
            throw SimulationFailure(step: .getFile, reason: "GetFile returned \(response.body.count) bytes, CheckFileInfo said Size \(info.size)", response: response)
        }
        report(.getFile, "\(response.body.count) bytes, " + (itemVersion.map { "X-WOPI-ItemVersion \($0)" } ?? "no X-WOPI-ItemVersion"))
        return response.body
    }

    mutating func putFile(_ wopi: WOPIRequests, _ content: Data, lock: String, previousVersion: String,
                          step: SimulationStep.Name = .putFile) async throws(SimulationFailure) {
        let response = try await send(wopi.putFile(content, lock: lock), step)
        guard response.status == 200 else {
            let current = response.header("X-WOPI-Lock") ?? ""
            let reason = switch response.status {
            case 409 where !current.isEmpty && current != lock:
                "the host refused the write with 409 naming the lock '\(current.prefix(100))', not Office's: it holds a lock of its own on the file, so no save can succeed"
            case 409: "the host refused the write although Office holds the lock"
            default: "PutFile must answer 200"
            }
            throw SimulationFailure(step: step, reason: reason, response: response)
        }
        try requireItemVersion(response, step, "PutFile")
        let itemVersion = response.header("X-WOPI-ItemVersion")
        if itemVersion == previousVersion {
            throw SimulationFailure(step: step, reason: "X-WOPI-ItemVersion is still '\(previousVersion)' after the write", response: response)
        }
        report(step, "saved \(content.count) bytes with the lock, X-WOPI-ItemVersion \(itemVersion ?? "")")
    }

    mutating func unlock(_ wopi: WOPIRequests, _ lock: String) async throws(SimulationFailure) {
        let response = try await send(wopi.lockOperation("UNLOCK", lock: lock), .unlock)
        guard response.status == 200 else {
            throw SimulationFailure(step: .unlock, reason: "Unlock with the lock Office holds must answer 200", response: response)
        }
        heldLocks.removeAll { $0.lock == lock }
        try requireItemVersion(response, .unlock, "Unlock")
        report(.unlock, "released \(lock)")
    }

    /// Why an operation answered 404, in words that do not blame the operation.
    static func notFound(_ operation: String) -> String {
        "\(operation) answered 404: the host does not know the file (gone, renamed on a host that ties ids to names, or a wrong WOPISrc)"
    }

    /// wopi_requirements.rst: Office for iOS needs X-WOPI-ItemVersion on every PutFile, Lock and Unlock answer.
    func requireItemVersion(_ response: SimulatorResponse, _ step: SimulationStep.Name, _ operation: String) throws(SimulationFailure) {
        guard let version = response.header("X-WOPI-ItemVersion"), !version.isEmpty else {
            throw SimulationFailure(step: step, reason: "\(operation) answered 200 without X-WOPI-ItemVersion, which Office for iOS requires on PutFile, Lock and Unlock",
                                    response: response)
        }
    }
}
