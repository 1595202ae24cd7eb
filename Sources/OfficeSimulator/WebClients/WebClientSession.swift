import Foundation
import WOPIHTTPClient

/// The state of one browser-editor run: the access, CheckFileInfo and the lock operations both
/// profiles share; the saves live in `WebClientSession+Saves.swift`.
struct WebClientSession: SimulationStepping {
    let simulator: WebClientSimulator
    let onStep: @Sendable (SimulationStep) -> Void
    var steps: [SimulationStep] = []
    /// The lock the editor holds and has not released yet.
    var heldLock: (wopi: WOPIRequests, lock: String)?

    /// The user agent of the simulated browser and editor.
    static let userAgent = "WOPIKit-OfficeSimulator/1.0 (browser editor)"

    init(simulator: WebClientSimulator, onStep: @escaping @Sendable (SimulationStep) -> Void) {
        self.simulator = simulator
        self.onStep = onStep
    }

    var transport: any HTTPTransport { simulator.transport }
    var options: WebClientSimulationOptions { simulator.options }
    var client: WebClientProfile { options.client }

    /// What CheckFileInfo told the editor.
    struct FileInfo {
        var summary: CheckFileInfoSummary
        var lastModifiedTime: String?
        /// Collabora Online's `TemplateSource`: the template a new document is made from.
        var templateSource: String?
    }

    /// Unlocks the lock still held after a failed step; returns what could not be put back.
    func releaseHeldLock() async -> [String] {
        guard let (wopi, lock) = heldLock else { return [] }
        let answer = try? await simulator.transport.send(wopi.lockOperation("UNLOCK", lock: lock))
        guard answer?.status != 200 else { return [] }
        return ["\(OfficeSimulator.redacted(wopi.wopiSrc)) is still locked by '\(lock)': Unlock failed; it expires within 30 minutes"]
    }

    mutating func run() async throws(SimulationFailure) -> SimulationResult {
        let (wopi, pageOrigin) = try await access()
        let info = try await checkFileInfo(wopi, pageOrigin: pageOrigin)
        switch client {
        case .officeWeb: return try await officeWeb(wopi, info)
        case .collabora: return try await collabora(wopi, info)
        }
    }

    // MARK: Access

    /// The WOPI requests for the file, and the host page's origin when the editor came through it.
    mutating func access() async throws(SimulationFailure) -> (WOPIRequests, String?) {
        if let page = options.hostPage { return try await readHostPage(page) }
        guard let wopiSrc = options.wopiSrc, let token = options.accessToken else {
            throw SimulationFailure(step: .givenAccessToken, reason: "neither a host page nor a WOPISrc with an access token: the editor has nothing to open")
        }
        report(.givenAccessToken, "no host page; \(client.displayName) opens \(wopiSrc.absoluteString) with the given access token")
        return (WOPIRequests(wopiSrc: wopiSrc, accessToken: token), nil)
    }

    /// online/hostpage.rst: the page is not cached and holds one form, posted to the action URL
    /// (which carries `WOPISrc`) with `access_token` and `access_token_ttl`. The simulator reads the
    /// form and builds the POST exactly as a browser submits it, then takes the token and the
    /// WOPISrc from that POST as the editor does; the POST itself is not sent to the real editor.
    mutating func readHostPage(_ page: URL) async throws(SimulationFailure) -> (WOPIRequests, String?) {
        var headers = [SimulatorHeader("User-Agent", Self.userAgent), SimulatorHeader("Accept", "text/html")]
        if let cookie = options.hostPageCookie { headers.append(SimulatorHeader("Cookie", cookie)) }
        let response = try await send(SimulatorRequest(method: "GET", url: page, headers: headers), .hostPage)
        guard response.status == 200 else {
            let reason = (300..<400).contains(response.status)
                ? "the host page redirected instead of answering 200: the user is not signed in (give the session cookie)"
                : "the host page must answer 200"
            throw SimulationFailure(step: .hostPage, reason: reason, response: response)
        }
        let cacheControl = response.header("Cache-Control")?.lowercased() ?? ""
        guard cacheControl.contains("no-cache") || cacheControl.contains("no-store") else {
            throw SimulationFailure(step: .hostPage, reason: "the page carries an access token, so it must not be cached (online/hostpage.rst); Cache-Control is '\(cacheControl)'")
        }
        let form: HTMLForm
        let submission: SimulatorRequest
        do {
            form = try HTMLForm(html: response.text, pageURL: page)
            submission = try form.submission(filling: [:])
        } catch {
            throw SimulationFailure(step: .hostPage, reason: "the editor's form cannot be read: \(error)")
        }
        guard submission.method == "POST" else {
            throw SimulationFailure(step: .hostPage, reason: "the form must be posted (method=\"post\"), so the token never shows in the editor's URL (online/hostpage.rst)")
        }
        // The editor's side of the POST.
        let posted = FormEncoding.decode(String(decoding: submission.body ?? Data(), as: UTF8.self))
        func field(_ name: String) -> String? { posted.first { $0.name == name }?.value }
        guard let token = field("access_token"), !token.isEmpty else {
            throw SimulationFailure(step: .hostPage, reason: "the form posts no access_token (online/hostpage.rst)")
        }
        guard let ttlText = field("access_token_ttl"), let ttl = Int64(ttlText), ttl >= 0 else {
            throw SimulationFailure(step: .hostPage, reason: "the form's access_token_ttl must be the token's expiry in milliseconds since 1970 (online/hostpage.rst)")
        }
        guard ttl == 0 || ttl > Int64(Date().timeIntervalSince1970 * 1000) else {
            throw SimulationFailure(step: .hostPage, reason: "access_token_ttl \(ttl) is in the past: it is an instant in milliseconds since 1970, not a duration")
        }
        let query = URLComponents(url: submission.url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        guard let source = query.first(where: { $0.name.lowercased() == "wopisrc" })?.value, let wopiSrc = URL(string: source),
              WebClientTime.origin(of: source) != nil else {
            throw SimulationFailure(step: .hostPage, reason: "the form's action URL carries no http(s) WOPISrc for the editor to call (discovery: the host appends WOPISrc)")
        }
        if let given = options.wopiSrc, given.absoluteString != wopiSrc.absoluteString {
            throw SimulationFailure(step: .hostPage, reason: "the form's WOPISrc \(source) is not the file asked for, \(given.absoluteString)")
        }
        let expiry = ttl == 0 ? "no expiry" : "valid until \(Date(timeIntervalSince1970: Double(ttl) / 1000).formatted(.iso8601))"
        report(.hostPage, "the form posts access_token and access_token_ttl (\(expiry)) to \(WebClientTime.origin(of: submission.url.absoluteString) ?? ""); WOPISrc \(source)")
        return (WOPIRequests(wopiSrc: wopiSrc, accessToken: token), WebClientTime.origin(of: page.absoluteString))
    }

    // MARK: CheckFileInfo and the lock

    /// CheckFileInfo held to the client's required properties; the file must be writable.
    mutating func checkFileInfo(_ wopi: WOPIRequests, pageOrigin: String?) async throws(SimulationFailure) -> FileInfo {
        let response = try await send(wopi.checkFileInfo, .checkFileInfo)
        guard response.status == 200 else {
            throw SimulationFailure(step: .checkFileInfo, reason: "CheckFileInfo must answer 200", response: response)
        }
        let findings = client.checkFileInfoFindings(response.body)
        if let problem = findings.failures.first {
            throw SimulationFailure(step: .checkFileInfo, reason: problem, response: response)
        }
        let summary: CheckFileInfoSummary
        switch CheckFileInfoSummary.check(response.body, expectedUserID: nil, scope: .whatTheScenarioReads) {
        case .failure(let problem): throw SimulationFailure(step: .checkFileInfo, reason: problem.reason, response: response)
        case .success(let info): summary = info
        }
        let object = JSONValue.object(from: response.body) ?? [:]
        let origin = object["PostMessageOrigin"]?.stringValue ?? ""
        if let pageOrigin, origin != pageOrigin {
            throw SimulationFailure(step: .checkFileInfo, reason: "PostMessageOrigin '\(origin)' is not the host page's origin '\(pageOrigin)', so the editor's messages would never reach the page",
                                    response: response)
        }
        if !summary.userCanWrite || summary.readOnly {
            throw SimulationFailure(step: .checkFileInfo, reason: "\(summary.readOnly ? "ReadOnly is true" : "UserCanWrite is not true"), so \(client.displayName) would open the file read-only",
                                    response: response)
        }
        if client == .officeWeb, let blocker = summary.editingBlocker {
            throw SimulationFailure(step: .checkFileInfo, reason: "\(blocker), so Office for the web would not edit the file", response: response)
        }
        // What the client works without is noted, never a reason to stop.
        let warnings = findings.warnings.isEmpty ? "" : "; warning: " + findings.warnings.joined(separator: "; ")
        report(.checkFileInfo, "'\(summary.baseFileName)', \(summary.size) bytes, Version \(summary.version), PostMessageOrigin \(origin.isEmpty ? "not given" : origin); "
            + client.requiredProperties.map(\.name).joined(separator: ", ") + " present" + warnings)
        return FileInfo(summary: summary, lastModifiedTime: object["LastModifiedTime"]?.stringValue,
                        templateSource: client == .collabora ? object["TemplateSource"]?.stringValue : nil)
    }

    mutating func takeLock(_ wopi: WOPIRequests, _ lock: String) async throws(SimulationFailure) {
        let response = try await send(wopi.lockOperation("LOCK", lock: lock), .lock)
        guard response.status == 200 else {
            throw SimulationFailure(step: .lock, reason: response.status == 409 ? "the host refused the lock (409): another client holds it" : "Lock must answer 200",
                                    response: response)
        }
        heldLock = (wopi, lock)
        report(.lock, "locked with \(lock)")
    }

    /// RefreshLock.rst: the editor renews its lock every few minutes while the document is open.
    mutating func refreshLock(_ wopi: WOPIRequests, _ lock: String) async throws(SimulationFailure) {
        let response = try await send(wopi.lockOperation("REFRESH_LOCK", lock: lock), .refreshLock)
        guard response.status == 200 else {
            throw SimulationFailure(step: .refreshLock, reason: "RefreshLock with the lock the editor holds must answer 200", response: response)
        }
        report(.refreshLock, "refreshed \(lock)")
    }

    mutating func unlock(_ wopi: WOPIRequests, _ lock: String) async throws(SimulationFailure) {
        let response = try await send(wopi.lockOperation("UNLOCK", lock: lock), .unlock)
        guard response.status == 200 else {
            throw SimulationFailure(step: .unlock, reason: "Unlock with the lock the editor holds must answer 200", response: response)
        }
        heldLock = nil
        report(.unlock, "released \(lock): the editor is closed")
    }

    mutating func getFile(_ wopi: WOPIRequests, _ info: CheckFileInfoSummary) async throws(SimulationFailure) -> Data {
        let response = try await send(wopi.getFile, .getFile)
        guard response.status == 200 else {
            throw SimulationFailure(step: .getFile, reason: "GetFile must answer 200", response: response)
        }
        guard Int64(response.body.count) == info.size else {
            throw SimulationFailure(step: .getFile, reason: "GetFile returned \(response.body.count) bytes, CheckFileInfo said Size \(info.size)", response: response)
        }
        report(.getFile, "\(response.body.count) bytes")
        return response.body
    }

    /// Collabora Online's `TemplateSource` (`wsd/reference.md`): a URL the editor can fetch as is
    /// (it carries its own token) of the template the new document is made from.
    mutating func fetchTemplate(_ source: String) async throws(SimulationFailure) -> Data {
        guard let url = URL(string: source), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw SimulationFailure(step: .templateSource, reason: "TemplateSource '\(source)' is not an absolute http(s) URL the editor can fetch")
        }
        let response = try await send(SimulatorRequest(method: "GET", url: url, headers: [SimulatorHeader("User-Agent", Self.userAgent)]), .templateSource)
        guard response.status == 200 else {
            throw SimulationFailure(step: .templateSource, reason: "fetching TemplateSource must answer 200 with the template", response: response)
        }
        report(.templateSource, "\(response.body.count) bytes of template, read instead of GetFile for the new document")
        return response.body
    }

    /// CheckFileInfo after the last save: the Version changed and the Size is the saved content's.
    mutating func checkAfterSave(_ wopi: WOPIRequests, before info: CheckFileInfoSummary, saved content: Data) async throws(SimulationFailure) -> String {
        let response = try await send(wopi.checkFileInfo, .checkFileInfoAfterSave)
        guard response.status == 200 else {
            throw SimulationFailure(step: .checkFileInfoAfterSave, reason: "CheckFileInfo must answer 200", response: response)
        }
        let after: CheckFileInfoSummary
        switch CheckFileInfoSummary.check(response.body, expectedUserID: nil, scope: .whatTheScenarioReads) {
        case .failure(let problem): throw SimulationFailure(step: .checkFileInfoAfterSave, reason: problem.reason, response: response)
        case .success(let summary): after = summary
        }
        guard after.version != info.version else {
            throw SimulationFailure(step: .checkFileInfoAfterSave, reason: "Version is still '\(after.version)' after saving; it must change on every save", response: response)
        }
        guard after.size == Int64(content.count) else {
            throw SimulationFailure(step: .checkFileInfoAfterSave, reason: "Size is \(after.size) after saving \(content.count) bytes", response: response)
        }
        report(.checkFileInfoAfterSave, "Version \(info.version) → \(after.version), \(after.size) bytes")
        return after.version
    }
}
