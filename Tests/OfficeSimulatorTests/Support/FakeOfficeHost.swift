import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OfficeURLScheme
import WOPICore

/// A small WOPI host with bootstrapper, OAuth sign-in pages, token endpoint and one file,
/// correct except for the one ``Defect`` it is built with — so each simulator test shows that
/// exactly that defect is caught, at the right step.
struct FakeOfficeHost {
    /// The one thing this host gets wrong.
    enum Defect: Sendable, CaseIterable {
        /// Behaves as the protocol says.
        case none
        /// Answers 409 lock conflicts without `X-WOPI-Lock` (Lock.rst requires it).
        case forgetsLockHeaderOn409
        /// Lets any lock replace or refresh the current one, so a made-up RefreshLock succeeds.
        case secondLockWins
        /// CheckFileInfo without the required `Version`.
        case checkFileInfoWithoutVersion
        /// CheckFileInfo without `IsEduUser`, which Office for iOS requires.
        case checkFileInfoWithoutIsEduUser
        /// RenameFile gives the file a new id, so the old WOPISrc answers 404.
        case renameLosesID
        /// The token endpoint refuses the refresh-token grant.
        case refusesRefreshGrant
        /// Folders say IsEduUser true, files false.
        case containerLicensingDiffers
        /// EnumerateChildren ignores `X-WOPI-FileExtensionFilterList`.
        case ignoresExtensionFilter
        /// PutFile replaces the content as soon as the request starts and keeps whatever arrives.
        case keepsTruncatedUpload
        /// PutRelativeFile answers a Name other than the new file's.
        case putRelativeNameMismatch
        /// CreateChildFile answers a Url without `access_token`.
        case createChildFileWithoutToken
        /// Does not offer renaming: SupportsRename is false.
        case noRename
    }

    static let clientID = "fake-office-client"
    static let clientSecret = "fake-office-secret"
    static let redirectURI = "https://localhost"
    static let username = "alice"
    static let password = "correct horse"
    static let userID = "user-alice"
    static let fileID = "doc1"
    static let fileName = "Quarterly report.docx"
    static let rootID = "root"
    static let folderID = "reports"
    static let appScheme = "fakeapp"
    static let sessionContext = "tenant:blue & green"
    /// A hidden field whose value needs every HTML escape; the sign-in handler checks it came back intact.
    static let trickyHiddenValue = "a&b \"quoted\" <tag> 'single'"

    let state: FakeHostState
    let baseURL: URL

    var bootstrapperURL: URL { baseURL.appendingPathComponent("wopibootstrapper") }
    var wopiSrc: String { "\(baseURL.absoluteString)/wopi/files/\(Self.fileID)" }

    /// An invoke URI for the fake file, as an app would build it.
    func invokeURI(_ command: OfficeCommand = .edit, passback: String? = "clouddrive", context: String? = "folder:Q4") throws -> OfficeInvokeURI {
        try OfficeInvokeURI(app: .word, command: command, documentURL: wopiSrc, service: "FakeHost", user: Self.userID,
                            fileName: Self.fileName, source: .app, passbackScheme: passback, context: context)
    }

    /// Runs a fake host on 127.0.0.1 and an ephemeral port for the duration of `body`.
    static func withRunning<T: Sendable>(
        defect: Defect = .none,
        content: Data = Data("original content".utf8),
        _ body: @Sendable (FakeOfficeHost) async throws -> T
    ) async throws -> T {
        let state = FakeHostState(defect: defect, content: content)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let router = Router()
        let base = BaseBox()
        addRoutes(to: router, state: state, base: base)
        // Stopping by cancellation logs an error per server; keep test output to the tests' own lines.
        var logger = Logger(label: "FakeOfficeHost")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else {
                group.cancelAll()
                throw FakeHostError("the fake host did not start")
            }
            await base.set(url)
            let host = FakeOfficeHost(state: state, baseURL: url)
            do {
                let result = try await body(host)
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    // MARK: Routes

    private static func addRoutes(to router: Router<BasicRequestContext>, state: FakeHostState, base: BaseBox) {
        router.get("wopibootstrapper") { request, _ in
            guard let token = bearer(request), await state.isOAuthToken(token) else { return await challenge(base) }
            return json(["Bootstrap": bootstrapObject(await base.url)])
        }
        router.post("wopibootstrapper") { request, _ in
            guard let token = bearer(request), await state.isOAuthToken(token) else { return await challenge(base) }
            guard request.headers[.sessionContext] == sessionContext else { return text(.badRequest, "missing X-WOPI-SessionContext") }
            if request.headers[.ecosystemOperation] == "GET_ROOT_CONTAINER" {
                let url = "\(await base.url.absoluteString)/wopi/containers/\(rootID)?access_token=\(state.wopiToken)"
                return json(["Bootstrap": bootstrapObject(await base.url),
                             "RootContainerInfo": ["ContainerPointer": ["Name": "Alice's files", "Url": url],
                                                   "ContainerInfo": state.containerInfo(rootID) ?? [:]]])
            }
            guard request.headers[.ecosystemOperation] == "GET_NEW_ACCESS_TOKEN" else { return text(.notImplemented, "unsupported operation") }
            let src = "\(await base.url.absoluteString)/wopi/files/\(fileID)"
            guard request.headers[.wopiSrcHeader] == src else { return text(.notFound, "unknown WOPISrc") }
            let expiry = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000
            return json(["Bootstrap": bootstrapObject(await base.url),
                         "AccessTokenInfo": ["AccessToken": state.wopiToken, "AccessTokenExpiry": expiry]])
        }

        router.get("oauth2/authorize") { request, _ in
            let query = request.uri.queryParameters
            guard query.get("client_id") == clientID, query.get("redirect_uri") == redirectURI, query.get("response_type") == "code",
                  let stateParameter = query.get("state")
            else { return text(.badRequest, "bad authorization request") }
            let csrf = await state.newCSRF()
            var response = html(.ok, signInPage(state: stateParameter, csrf: csrf, error: nil))
            response.headers[.setCookie] = "fake_csrf=\(csrf); Path=/; HttpOnly"
            return response
        }
        router.post("oauth2/signin") { request, _ in
            let form = try await formBody(request)
            guard let csrf = form["csrf"], cookie(request, "fake_csrf") == csrf, await state.consumeCSRF(csrf) else {
                return text(.forbidden, "CSRF check failed")
            }
            guard form["note"] == trickyHiddenValue else { return text(.badRequest, "hidden field 'note' came back changed") }
            let stateParameter = form["state"] ?? ""
            guard form["username"] == username, form["password"] == password else {
                let again = await state.newCSRF()
                var response = html(.unauthorized, signInPage(state: stateParameter, csrf: again, error: "Wrong user name or password."))
                response.headers[.setCookie] = "fake_csrf=\(again); Path=/; HttpOnly"
                return response
            }
            return html(.ok, consentPage(state: stateParameter, ticket: await state.newTicket()))
        }
        router.post("oauth2/consent") { request, _ in
            let form = try await formBody(request)
            guard let ticket = form["ticket"], await state.consumeTicket(ticket) else { return text(.forbidden, "unknown ticket") }
            let stateParameter = FormCoding.encode(form["state"] ?? "")
            var response = Response(status: .found)
            if form["decision"] == "allow" {
                let code = await state.newCode()
                response.headers[.location] = "\(redirectURI)?code=\(code)&state=\(stateParameter)&sc=\(FormCoding.encode(sessionContext))"
            } else {
                response.headers[.location] = "\(redirectURI)?error=access_denied&state=\(stateParameter)"
            }
            return response
        }
        router.post("oauth2/token") { request, _ in
            let form = try await formBody(request)
            if form["grant_type"] == "refresh_token" {
                guard form["client_id"] == clientID, form["client_secret"] == clientSecret else { return json(["error": "invalid_client"], status: .unauthorized) }
                guard request.headers[.sessionContext] == sessionContext else { return json(["error": "invalid_request"], status: .badRequest) }
                guard state.defect != .refusesRefreshGrant, let presented = form["refresh_token"], await state.consumeRefreshToken(presented) else {
                    return json(["error": "invalid_grant", "error_description": "refresh token refused"], status: .badRequest)
                }
                return json(["access_token": await state.newOAuthToken(), "token_type": "Bearer", "expires_in": 3600,
                             "refresh_token": await state.newRefreshToken()])
            }
            guard form["grant_type"] == "authorization_code", form["client_id"] == clientID, form["client_secret"] == clientSecret else {
                return json(["error": "invalid_client"], status: .unauthorized)
            }
            guard request.headers[.sessionContext] == sessionContext else { return json(["error": "invalid_request"], status: .badRequest) }
            guard let code = form["code"], await state.consumeCode(code) else { return json(["error": "invalid_grant"], status: .badRequest) }
            return json(["access_token": await state.newOAuthToken(), "token_type": "Bearer", "expires_in": 3600,
                         "refresh_token": await state.newRefreshToken()])
        }

        router.get("wopi/files/:id") { request, context in
            guard let id = await authorize(request, context, state) else { return refusal(request, state) }
            return await state.checkFileInfo(id)
        }
        router.get("wopi/files/:id/ancestry") { request, context in
            guard let id = await authorize(request, context, state) else { return refusal(request, state) }
            return await state.ancestry(of: id, base: await base.url)
        }
        router.get("wopi/files/:id/contents") { request, context in
            guard let id = await authorize(request, context, state) else { return refusal(request, state) }
            let (content, version) = await state.file(id)
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: content)))
            response.headers[.itemVersion] = version
            response.headers[.contentType] = "application/octet-stream"
            return response
        }
        router.post("wopi/files/:id/contents") { request, context in
            guard let id = await authorize(request, context, state) else { return refusal(request, state) }
            guard request.headers[.override] == "PUT" else { return text(.badRequest, "PutFile needs X-WOPI-Override: PUT") }
            if state.defect == .keepsTruncatedUpload {
                // The defect: the content is replaced before the body is complete, and whatever arrives is kept.
                await state.startUpload(id)
                do {
                    for try await chunk in request.body { await state.appendUpload(id, Data(chunk.readableBytesView)) }
                } catch {
                    return text(.badRequest, "connection lost")
                }
                var response = Response(status: .ok)
                response.headers[.itemVersion] = await state.file(id).1
                return response
            }
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return await state.putFile(id, Data(body.readableBytesView), lock: request.headers[.lock])
        }
        router.post("wopi/files/:id") { request, context in
            guard let id = await authorize(request, context, state) else { return refusal(request, state) }
            switch request.headers[.override] ?? "" {
            case "PUT_RELATIVE":
                guard let suggested = request.headers[.suggestedTarget].flatMap({ try? UTF7.decode($0) }) else {
                    return text(.badRequest, "PutRelativeFile needs X-WOPI-SuggestedTarget")
                }
                var request = request
                let body = try await request.collectBody(upTo: 1 << 20)
                let (newID, name) = await state.createFile(named: suggested, in: await state.folder(of: id), content: Data(body.readableBytesView))
                let answered = state.defect == .putRelativeNameMismatch ? "Another name.docx" : name
                return json(["Name": answered, "Url": "\(await base.url.absoluteString)/wopi/files/\(newID)?access_token=\(state.wopiToken)"])
            case "RENAME_FILE":
                guard let stem = request.headers[.requestedName].flatMap({ try? UTF7.decode($0) }) else {
                    return text(.badRequest, "RenameFile needs X-WOPI-RequestedName")
                }
                return await state.rename(id, to: stem, lock: request.headers[.lock])
            case let operation:
                return await state.lockOperation(id, operation, lock: request.headers[.lock])
            }
        }

        router.get("wopi/containers/:id") { request, context in
            guard request.uri.queryParameters.get("access_token") == state.wopiToken else { return text(.unauthorized, "bad access token") }
            guard let info = state.containerInfo(context.parameters.get("id") ?? "") else { return text(.notFound, "no such folder") }
            return json(info)
        }
        router.get("wopi/containers/:id/children") { request, context in
            guard request.uri.queryParameters.get("access_token") == state.wopiToken else { return text(.unauthorized, "bad access token") }
            let filter = state.defect == .ignoresExtensionFilter ? nil : request.headers[.extensionFilter]
            return await state.children(of: context.parameters.get("id") ?? "", filter: filter, base: await base.url)
        }
        router.post("wopi/containers/:id") { request, context in
            guard request.uri.queryParameters.get("access_token") == state.wopiToken else { return text(.unauthorized, "bad access token") }
            let folder = context.parameters.get("id") ?? ""
            guard request.headers[.override] == "CREATE_CHILD_FILE", state.containerInfo(folder) != nil,
                  let suggested = request.headers[.suggestedTarget].flatMap({ try? UTF7.decode($0) }) else {
                return text(.badRequest, "only CREATE_CHILD_FILE with X-WOPI-SuggestedTarget in a known folder")
            }
            let (newID, name) = await state.createFile(named: suggested, in: folder, content: Data())
            let token = state.defect == .createChildFileWithoutToken ? "" : "?access_token=\(state.wopiToken)"
            return json(["Name": name, "Url": "\(await base.url.absoluteString)/wopi/files/\(newID)\(token)"])
        }
    }

    /// 401 for a wrong token, else 404.
    private static func refusal(_ request: Request, _ state: FakeHostState) -> Response {
        request.uri.queryParameters.get("access_token") != state.wopiToken ? text(.unauthorized, "bad access token") : text(.notFound, "no such file")
    }

    /// The file id the request names, when the token is right and the file exists.
    private static func authorize(_ request: Request, _ context: BasicRequestContext, _ state: FakeHostState) async -> String? {
        guard let id = context.parameters.get("id"), await state.exists(id),
              request.uri.queryParameters.get("access_token") == state.wopiToken else { return nil }
        return id
    }

    private static func challenge(_ base: BaseBox) async -> Response {
        let url = await base.url.absoluteString
        var response = Response(status: .unauthorized)
        do {
            let challenge = try BootstrapperChallenge(authorizationURI: "\(url)/oauth2/authorize", tokenIssuanceURI: "\(url)/oauth2/token",
                                                      providerID: "FakeHost", urlSchemes: ["iOS": [appScheme]])
            response.headers[.wwwAuthenticate] = challenge.headerValue
        } catch {
            return text(.internalServerError, "fixture challenge rejected: \(error)")
        }
        return response
    }

    private static func bootstrapObject(_ base: URL) -> [String: Any] {
        ["EcosystemUrl": "\(base.absoluteString)/wopi/ecosystem?access_token=x", "UserId": userID, "SignInName": username, "UserFriendlyName": "Alice"]
    }

    private static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        for prefix in ["Bearer: ", "Bearer "] where value.hasPrefix(prefix) { return String(value.dropFirst(prefix.count)) }
        return nil
    }

    private static func cookie(_ request: Request, _ name: String) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    private static func formBody(_ request: Request) async throws -> [String: String] {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        return FormCoding.decode(String(buffer: buffer))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "'", with: "&#39;")
    }

    private static func signInPage(state: String, csrf: String, error: String?) -> String {
        """
        <!DOCTYPE html>
        <html><head><title>Sign in to FakeHost</title>
        <script>if (a < b && c > d) { document.write("<form action='nowhere'>") }</script></head>
        <body>
        <!-- <form action="/commented-out"> must be ignored -->
        \(error.map { "<p class=\"error banner\">\(escape($0))</p>" } ?? "")
        <FORM Method="post" action="signin">
          <input type="hidden" name="state" value="\(escape(state))">
          <input type=hidden name=csrf value=\(csrf)>
          <input type='hidden' name='note' value='\(escape(trickyHiddenValue))'>
          <label>User <input type="text" name="username" autocomplete="username"></label>
          <label>Password <input type="password" name="password"></label>
          <input type="checkbox" name="remember" value="yes">
          <button type="submit">Sign in</button>
        </FORM>
        </body></html>
        """
    }

    private static func consentPage(state: String, ticket: String) -> String {
        """
        <html><body><h1>Allow Office to open your files?</h1>
        <form method="post" action="/oauth2/consent">
          <input type="hidden" name="state" value="\(escape(state))">
          <input type="hidden" name="ticket" value="\(ticket)">
          <button type="submit" name="decision" value="deny">Deny</button>
          <button type="submit" name="decision" value="allow">Allow</button>
        </form></body></html>
        """
    }

    /// Keys sorted, so every answer is the same bytes from run to run (failure excerpts show a fixed prefix).
    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        response.headers[.contentType] = "application/json; charset=utf-8"
        return response
    }

    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(string: message)))
        response.headers[.contentType] = "text/plain"
        return response
    }

    private static func html(_ status: HTTPResponse.Status, _ page: String) -> Response {
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(string: page)))
        response.headers[.contentType] = "text/html; charset=utf-8"
        return response
    }
}

/// The fake host's state: two folders, three files (one not an Office file), locks, the codes
/// and tokens it issued.
actor FakeHostState {
    struct File {
        var name: String
        var content: Data
        var version: Int
        var lock: String?
        var folder: String
    }

    let defect: FakeOfficeHost.Defect
    private var files: [String: File]
    private var nextFileNumber = 2
    private let folders: [String: (name: String, parent: String?)] = [
        FakeOfficeHost.rootID: ("Alice's files", nil), FakeOfficeHost.folderID: ("Reports", FakeOfficeHost.rootID),
    ]
    private var csrfTokens: Set<String> = []
    private var tickets: Set<String> = []
    private var codes: Set<String> = []
    private var oauthTokens: Set<String> = []
    private var refreshTokens: Set<String> = []
    let wopiToken = "wopi-token-" + UUID().uuidString
    /// Every `X-WOPI-Override` received, in order, to check what Office did and did not do.
    private(set) var operations: [String] = []

    init(defect: FakeOfficeHost.Defect, content: Data) {
        self.defect = defect
        files = [
            FakeOfficeHost.fileID: File(name: FakeOfficeHost.fileName, content: content, version: 1, folder: FakeOfficeHost.folderID),
            "budget": File(name: "Budget.xlsx", content: Data("budget".utf8), version: 1, folder: FakeOfficeHost.rootID),
            "notes": File(name: "notes.txt", content: Data("notes".utf8), version: 1, folder: FakeOfficeHost.rootID),
        ]
    }

    func newCSRF() -> String { insert(into: &csrfTokens) }
    func consumeCSRF(_ token: String) -> Bool { csrfTokens.remove(token) != nil }
    func newTicket() -> String { insert(into: &tickets) }
    func consumeTicket(_ ticket: String) -> Bool { tickets.remove(ticket) != nil }
    /// An authorization code, as the provider's app gets one for Office.
    func newCode() -> String { insert(into: &codes) }
    func consumeCode(_ code: String) -> Bool { codes.remove(code) != nil }
    func newOAuthToken() -> String { insert(into: &oauthTokens) }
    func isOAuthToken(_ token: String) -> Bool { oauthTokens.contains(token) }
    func newRefreshToken() -> String { insert(into: &refreshTokens) }
    func consumeRefreshToken(_ token: String) -> Bool { refreshTokens.remove(token) != nil }

    private func insert(into set: inout Set<String>) -> String {
        let value = UUID().uuidString
        set.insert(value)
        return value
    }

    // MARK: The invoked file, for the tests

    var content: Data { files[FakeOfficeHost.fileID]?.content ?? Data() }
    var lock: String? { files[FakeOfficeHost.fileID]?.lock }
    /// Another client's lock on the invoked file, taken before Office comes.
    func lockAsAnotherClient(_ lock: String) { files[FakeOfficeHost.fileID]?.lock = lock }
    func file() -> (Data, String) { file(FakeOfficeHost.fileID) }
    /// The names of every file, sorted.
    var fileNames: [String] { files.values.map(\.name).sorted() }

    // MARK: Files

    func exists(_ id: String) -> Bool { files[id] != nil }
    func file(_ id: String) -> (Data, String) { (files[id]?.content ?? Data(), "v\(files[id]?.version ?? 0)") }
    func folder(of id: String) -> String { files[id]?.folder ?? FakeOfficeHost.rootID }

    func checkFileInfo(_ id: String) -> Response {
        guard let file = files[id] else { return FakeOfficeHost.text(.notFound, "no such file") }
        var info: [String: Any] = [
            "BaseFileName": file.name, "OwnerId": FakeOfficeHost.userID, "UserId": FakeOfficeHost.userID,
            "Size": file.content.count, "Version": "v\(file.version)", "IsEduUser": false, "LicenseCheckForEditIsEnabled": false,
            "UserCanWrite": true, "SupportsLocks": true, "SupportsGetLock": true, "SupportsUpdate": true,
            "SupportsExtendedLockLength": true, "UserFriendlyName": "Alice", "SupportsRename": true, "UserCanRename": true,
            "SupportsContainers": true, "SupportsDeleteFile": true,
        ]
        if defect == .checkFileInfoWithoutVersion { info["Version"] = nil }
        if defect == .checkFileInfoWithoutIsEduUser { info["IsEduUser"] = nil }
        if defect == .noRename { info["SupportsRename"] = false }
        return FakeOfficeHost.json(info)
    }

    func createFile(named wanted: String, in folder: String, content: Data) -> (String, String) {
        var name = wanted
        var counter = 1
        while files.values.contains(where: { $0.name == name && $0.folder == folder }) {
            counter += 1
            let dot = wanted.lastIndex(of: ".") ?? wanted.endIndex
            name = "\(wanted[..<dot]) (\(counter))\(wanted[dot...])"
        }
        let id = "file\(nextFileNumber)"
        nextFileNumber += 1
        files[id] = File(name: name, content: content, version: 1, folder: folder)
        return (id, name)
    }

    func rename(_ id: String, to stem: String, lock requested: String?) -> Response {
        operations.append("RENAME_FILE")
        guard var file = files[id] else { return FakeOfficeHost.text(.notFound, "no such file") }
        guard file.lock == nil || file.lock == requested else { return conflict(id, "locked") }
        let ext = file.name.lastIndex(of: ".").map { String(file.name[$0...]) } ?? ""
        file.name = stem + ext
        if defect == .renameLosesID {
            files[id] = nil
            files["renamed-\(id)"] = file
        } else {
            files[id] = file
        }
        return FakeOfficeHost.json(["Name": stem])
    }

    func startUpload(_ id: String) {
        operations.append("PUT")
        files[id]?.content = Data()
        files[id]?.version += 1
    }

    func appendUpload(_ id: String, _ chunk: Data) { files[id]?.content.append(chunk) }

    func putFile(_ id: String, _ body: Data, lock requested: String?) -> Response {
        operations.append("PUT")
        guard let file = files[id] else { return FakeOfficeHost.text(.notFound, "no such file") }
        guard requested == file.lock || (file.lock == nil && file.content.isEmpty) else { return conflict(id, "the file is not locked with that lock") }
        files[id]?.content = body
        files[id]?.version += 1
        var response = Response(status: .ok)
        response.headers[.itemVersion] = "v\(file.version + 1)"
        return response
    }

    func lockOperation(_ id: String, _ operation: String, lock requested: String?) -> Response {
        operations.append(operation)
        guard let file = files[id] else { return FakeOfficeHost.text(.notFound, "no such file") }
        switch operation {
        case "GET_LOCK":
            var response = Response(status: .ok)
            response.headers[.lock] = file.lock ?? ""
            return response
        case "LOCK", "REFRESH_LOCK", "UNLOCK":
            guard let requested else { return FakeOfficeHost.text(.badRequest, "missing X-WOPI-Lock") }
            let matches = requested == file.lock
            let allowed: Bool
            switch (operation, defect) {
            case ("LOCK", .secondLockWins), ("REFRESH_LOCK", .secondLockWins): allowed = true
            case ("LOCK", _): allowed = file.lock == nil || matches
            default: allowed = matches
            }
            guard allowed else { return conflict(id, "lock mismatch") }
            files[id]?.lock = operation == "UNLOCK" ? nil : requested
            var response = Response(status: .ok)
            response.headers[.itemVersion] = "v\(file.version)"
            return response
        default:
            return FakeOfficeHost.text(.notImplemented, "unsupported")
        }
    }

    private func conflict(_ id: String, _ reason: String) -> Response {
        var response = Response(status: .conflict)
        if defect != .forgetsLockHeaderOn409 { response.headers[.lock] = files[id]?.lock ?? "" }
        response.headers[.lockFailureReason] = reason
        return response
    }

    // MARK: Folders

    nonisolated func containerInfo(_ id: String) -> [String: Any]? {
        guard let folder = folders[id] else { return nil }
        return ["Name": folder.name, "IsEduUser": defect == .containerLicensingDiffers, "LicenseCheckForEditIsEnabled": false,
                "UserCanCreateChildFile": true]
    }

    func children(of id: String, filter: String?, base: URL) -> Response {
        guard folders[id] != nil else { return FakeOfficeHost.text(.notFound, "no such folder") }
        let allowed = filter.map { Set($0.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        let childFolders = folders.filter { $0.value.parent == id }.sorted { $0.key < $1.key }.map { entry in
            ["Name": entry.value.name, "Url": "\(base.absoluteString)/wopi/containers/\(entry.key)?access_token=\(wopiToken)"]
        }
        let childFiles = files.filter { entry in
            guard entry.value.folder == id else { return false }
            guard let allowed else { return true }
            let ext = entry.value.name.lastIndex(of: ".").map { String(entry.value.name[$0...]).lowercased() } ?? ""
            return allowed.contains(ext)
        }.sorted { $0.key < $1.key }.map { entry -> [String: Any] in
            ["Name": entry.value.name, "Url": "\(base.absoluteString)/wopi/files/\(entry.key)?access_token=\(wopiToken)",
             "Size": entry.value.content.count, "Version": "v\(entry.value.version)"]
        }
        return FakeOfficeHost.json(["ChildContainers": childFolders, "ChildFiles": childFiles])
    }

    func ancestry(of id: String, base: URL) -> Response {
        var chain: [[String: String]] = []
        var current: String? = files[id]?.folder
        while let folder = current, let entry = folders[folder] {
            chain.insert(["Name": entry.name, "Url": "\(base.absoluteString)/wopi/containers/\(folder)?access_token=\(wopiToken)"], at: 0)
            current = entry.parent
        }
        return FakeOfficeHost.json(["AncestorsWithRootFirst": chain])
    }
}

/// The base URL, known only once the server listens.
actor BaseBox {
    private(set) var url = URL(fileURLWithPath: "/")
    func set(_ url: URL) { self.url = url }
}

struct FakeHostError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Form and query encoding for the fake host's own use.
enum FormCoding {
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func decode(_ body: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            result[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }
}

extension HTTPField.Name {
    static let override = Self("X-WOPI-Override")!
    static let lock = Self("X-WOPI-Lock")!
    static let lockFailureReason = Self("X-WOPI-LockFailureReason")!
    static let itemVersion = Self("X-WOPI-ItemVersion")!
    static let sessionContext = Self("X-WOPI-SessionContext")!
    static let ecosystemOperation = Self("X-WOPI-EcosystemOperation")!
    static let wopiSrcHeader = Self("X-WOPI-WopiSrc")!
    static let suggestedTarget = Self("X-WOPI-SuggestedTarget")!
    static let requestedName = Self("X-WOPI-RequestedName")!
    static let extensionFilter = Self("X-WOPI-FileExtensionFilterList")!
}
