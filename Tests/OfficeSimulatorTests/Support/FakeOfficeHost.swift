import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OfficeURLScheme

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
    }

    static let clientID = "fake-office-client"
    static let clientSecret = "fake-office-secret"
    static let redirectURI = "https://localhost"
    static let username = "alice"
    static let password = "correct horse"
    static let userID = "user-alice"
    static let fileID = "doc1"
    static let fileName = "Quarterly report.docx"
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
            guard form["grant_type"] == "authorization_code", form["client_id"] == clientID, form["client_secret"] == clientSecret else {
                return json(["error": "invalid_client"], status: .unauthorized)
            }
            guard request.headers[.sessionContext] == sessionContext else { return json(["error": "invalid_request"], status: .badRequest) }
            guard let code = form["code"], await state.consumeCode(code) else { return json(["error": "invalid_grant"], status: .badRequest) }
            return json(["access_token": await state.newOAuthToken(), "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-1"])
        }

        router.get("wopi/files/:id") { request, context in
            if let failure = await authorizeFile(request, context, state) { return failure }
            return await state.checkFileInfo()
        }
        router.get("wopi/files/:id/contents") { request, context in
            if let failure = await authorizeFile(request, context, state) { return failure }
            let (content, version) = await state.file()
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: content)))
            response.headers[.itemVersion] = version
            response.headers[.contentType] = "application/octet-stream"
            return response
        }
        router.post("wopi/files/:id/contents") { request, context in
            if let failure = await authorizeFile(request, context, state) { return failure }
            guard request.headers[.override] == "PUT" else { return text(.badRequest, "PutFile needs X-WOPI-Override: PUT") }
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return await state.putFile(Data(body.readableBytesView), lock: request.headers[.lock])
        }
        router.post("wopi/files/:id") { request, context in
            if let failure = await authorizeFile(request, context, state) { return failure }
            return await state.lockOperation(request.headers[.override] ?? "", lock: request.headers[.lock])
        }
    }

    private static func authorizeFile(_ request: Request, _ context: BasicRequestContext, _ state: FakeHostState) async -> Response? {
        guard context.parameters.get("id") == fileID else { return text(.notFound, "no such file") }
        guard request.uri.queryParameters.get("access_token") == state.wopiToken else { return text(.unauthorized, "bad access token") }
        return nil
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

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
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

/// The fake host's state: one file, its lock, the codes and tokens it issued.
actor FakeHostState {
    let defect: FakeOfficeHost.Defect
    private(set) var content: Data
    private(set) var version = 1
    private(set) var lock: String?
    private var csrfTokens: Set<String> = []
    private var tickets: Set<String> = []
    private var codes: Set<String> = []
    private var oauthTokens: Set<String> = []
    let wopiToken = "wopi-token-" + UUID().uuidString
    /// Every `X-WOPI-Override` received, in order, to check what Office did and did not do.
    private(set) var operations: [String] = []

    init(defect: FakeOfficeHost.Defect, content: Data) {
        self.defect = defect
        self.content = content
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

    private func insert(into set: inout Set<String>) -> String {
        let value = UUID().uuidString
        set.insert(value)
        return value
    }

    func file() -> (Data, String) { (content, "v\(version)") }

    func checkFileInfo() -> Response {
        var info: [String: Any] = [
            "BaseFileName": FakeOfficeHost.fileName, "OwnerId": FakeOfficeHost.userID, "UserId": FakeOfficeHost.userID,
            "Size": content.count, "Version": "v\(version)", "IsEduUser": false, "LicenseCheckForEditIsEnabled": false,
            "UserCanWrite": true, "SupportsLocks": true, "SupportsGetLock": true, "SupportsUpdate": true,
            "SupportsExtendedLockLength": true, "UserFriendlyName": "Alice",
        ]
        if defect == .checkFileInfoWithoutVersion { info["Version"] = nil }
        return FakeOfficeHost.json(info)
    }

    func putFile(_ body: Data, lock requested: String?) -> Response {
        operations.append("PUT")
        guard requested == lock || (lock == nil && content.isEmpty) else { return conflict("the file is not locked with that lock") }
        content = body
        version += 1
        var response = Response(status: .ok)
        response.headers[.itemVersion] = "v\(version)"
        return response
    }

    func lockOperation(_ operation: String, lock requested: String?) -> Response {
        operations.append(operation)
        switch operation {
        case "GET_LOCK":
            var response = Response(status: .ok)
            response.headers[.lock] = lock ?? ""
            return response
        case "LOCK", "REFRESH_LOCK", "UNLOCK":
            guard let requested else { return FakeOfficeHost.text(.badRequest, "missing X-WOPI-Lock") }
            let matches = requested == lock
            let allowed: Bool
            switch (operation, defect) {
            case ("LOCK", .secondLockWins), ("REFRESH_LOCK", .secondLockWins): allowed = true
            case ("LOCK", _): allowed = lock == nil || matches
            default: allowed = matches
            }
            guard allowed else { return conflict("lock mismatch") }
            lock = operation == "UNLOCK" ? nil : requested
            var response = Response(status: .ok)
            response.headers[.itemVersion] = "v\(version)"
            return response
        default:
            return FakeOfficeHost.text(.notImplemented, "unsupported")
        }
    }

    private func conflict(_ reason: String) -> Response {
        var response = Response(status: .conflict)
        if defect != .forgetsLockHeaderOn409 { response.headers[.lock] = lock ?? "" }
        response.headers[.lockFailureReason] = reason
        return response
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
}
