import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIStoreSQLite

/// A host with sign-in on a temporary data folder, served over real HTTP on 127.0.0.1 (an
/// ephemeral port), with two users and a clock the tests can move.
struct SignInFixture: Sendable {
    static let publicURL = "https://wopi.example.test"
    static let officeClientID = "office-test"
    static let officeSecret = "office-secret-0123456789"
    static let officeRedirect = "https://localhost"
    static let alicePassword = "alice-password-1"
    static let bobPassword = "bob-password-22"

    let folder: HostStorage
    let dataURL: URL
    let backend: WOPIBackend
    let clock: TestClock
    let alice: UserRecord
    let bob: UserRecord
    let fileA: FileRecord
    let fileB: FileRecord
    let bobsFile: FileRecord

    static func make(policy: AuthorizationPolicy = .init(), monitor: HostMonitor = HostMonitor()) async throws -> SignInFixture {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-signin-\(UUID().uuidString)").path
        let folder = try HostStorage.embedded(data: URL(fileURLWithPath: path, isDirectory: true))
        let clock = TestClock()
        var configuration = WOPIHostConfiguration(publicURL: URL(string: publicURL)!, now: { clock.now })
        configuration.officeRegistration = try OfficeRegistration(clientID: officeClientID, clientSecret: officeSecret, redirectURI: officeRedirect,
                                                                  providerID: "tp_wopikit", iOSURLSchemes: ["contoso", "contoso-emm"])
        configuration.authorizationPolicy = policy
        configuration.monitor = monitor // metrics and audit log
        let backend = try await folder.backend(configuration: configuration)
        // A cheap scrypt cost keeps the tests fast; the verification path is the same.
        let alice = try await folder.store.createUser(name: "alice", displayName: "Alice <Admin>",
                                                      passwordHash: PasswordHash(hashing: alicePassword, logN: 10))
        let bob = try await folder.store.createUser(name: "bob", displayName: "Bob", passwordHash: PasswordHash(hashing: bobPassword, logN: 10))
        let fileA = try await folder.importFile(data: Data("A".utf8), as: "A.docx", into: alice.rootContainerID)
        let fileB = try await folder.importFile(data: Data("B".utf8), as: "B.xlsx", into: alice.rootContainerID)
        let bobsFile = try await folder.importFile(data: Data("C".utf8), as: "Bob.pptx", into: bob.rootContainerID)
        return SignInFixture(folder: folder, dataURL: URL(fileURLWithPath: path, isDirectory: true), backend: backend, clock: clock, alice: alice, bob: bob, fileA: fileA, fileB: fileB, bobsFile: bobsFile)
    }

    /// Runs `body` against the host listening on 127.0.0.1.
    func serve<Value: Sendable>(_ body: @Sendable (HTTPSession) async throws -> Value) async throws -> Value {
        defer { try? FileManager.default.removeItem(at: dataURL) }
        let app = Application(router: WOPIHostApplication.router(backend: backend, extensions: [AuthorizationRoutes()]),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in try await body(HTTPSession(client: client)) }
    }
}

/// A clock the tests advance.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()

    var now: Date {
        lock.lock(); defer { lock.unlock() }
        return current
    }

    func advance(by seconds: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        current = current.addingTimeInterval(seconds)
    }
}

/// A response with its body as text.
struct HTTPReply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: String

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }

    var location: String? { headers[.location] }

    /// The query parameters of the Location header.
    var redirectParameters: [String: String] {
        guard let location, let components = URLComponents(string: location) else { return [:] }
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// Name/value of the hidden inputs of the page's form.
    var hiddenFields: [(String, String)] {
        let pattern = try! NSRegularExpression(pattern: "<input type=\"hidden\" name=\"([^\"]*)\" value=\"([^\"]*)\">")
        let range = NSRange(body.startIndex..., in: body)
        return pattern.matches(in: body, range: range).map { match in
            (unescape(String(body[Range(match.range(at: 1), in: body)!])), unescape(String(body[Range(match.range(at: 2), in: body)!])))
        }
    }

    /// The value of the cookie the response sets.
    var cookie: String? {
        headers[values: .setCookie].first.flatMap { $0.split(separator: ";").first.map(String.init) }
    }

    private func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// HTTP over the live test client, with the form and flow steps the tests share.
struct HTTPSession: Sendable {
    let client: any TestClientProtocol

    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> HTTPReply {
        try await send(uri, method: .get, headers: headers, body: nil)
    }

    func post(_ uri: String, form: [(String, String)], headers: HTTPFields = [:]) async throws -> HTTPReply {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await send(uri, method: .post, headers: headers, body: Self.encode(form))
    }

    func post(_ uri: String, headers: HTTPFields) async throws -> HTTPReply {
        try await send(uri, method: .post, headers: headers, body: nil)
    }

    private func send(_ uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: String?) async throws -> HTTPReply {
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return HTTPReply(status: response.status, headers: response.headers, body: String(buffer: response.body))
    }

    static func encode(_ pairs: [(String, String)]) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return pairs.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: unreserved)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved)!)" }
            .joined(separator: "&")
    }

    static func bearer(_ token: String, colon: Bool = false, sessionContext: String? = nil) -> HTTPFields {
        var headers = HTTPFields()
        headers[.authorization] = colon ? "Bearer: \(token)" : "Bearer \(token)"
        if let sessionContext { headers[HTTPField.Name("X-WOPI-SessionContext")!] = sessionContext }
        return headers
    }

    static func basic(_ id: String, _ secret: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.authorization] = "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
        return headers
    }

    // MARK: Flow steps

    /// `/oauth2/authorize?…` for Office's client.
    static func officeAuthorizeURI(state: String? = "xyz", redirect: String = SignInFixture.officeRedirect, extra: [(String, String)] = []) -> String {
        var query = [("client_id", SignInFixture.officeClientID), ("redirect_uri", redirect), ("response_type", "code"), ("scope", "wopi"),
                     ("rs", "en-US"), ("build", "16.0.1"), ("platform", "iOS")]
        if let state { query.append(("state", state)) }
        return "/oauth2/authorize?" + encode(query + extra)
    }

    /// Submits the page's form with `fields` added to its hidden inputs, sending back its cookie.
    func submit(_ page: HTTPReply, cookie: String?, _ fields: [(String, String)]) async throws -> HTTPReply {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = cookie }
        return try await post("/oauth2/authorize", form: page.hiddenFields + fields, headers: headers)
    }

    /// Signs in through the pages (sign-in, then consent when asked) and returns the final response.
    func signIn(_ uri: String, username: String, password: String, decision: String = "allow") async throws -> HTTPReply {
        let page = try await get(uri)
        #expect(page.status == .ok, "sign-in page: \(page.body)")
        let cookie = page.cookie
        let afterSignIn = try await submit(page, cookie: cookie, [("username", username), ("password", password)])
        guard afterSignIn.status == .ok, afterSignIn.body.contains("name=\"decision\"") else { return afterSignIn }
        return try await submit(afterSignIn, cookie: cookie, [("decision", decision)])
    }

    /// The Office web flow up to the redirect: returns its code and sc.
    func officeCode(username: String = "alice", password: String = SignInFixture.alicePassword) async throws -> (code: String, sc: String) {
        let done = try await signIn(Self.officeAuthorizeURI(), username: username, password: password)
        #expect(done.status == .found)
        let parameters = done.redirectParameters
        return (try #require(parameters["code"]), try #require(parameters["sc"]))
    }

    /// Redeems a code as Office (HTTP Basic credentials).
    func redeem(_ code: String, sc: String?, secret: String = SignInFixture.officeSecret, redirect: String? = SignInFixture.officeRedirect) async throws -> HTTPReply {
        var headers = Self.basic(SignInFixture.officeClientID, secret)
        if let sc { headers[HTTPField.Name("X-WOPI-SessionContext")!] = sc }
        var form = [("grant_type", "authorization_code"), ("code", code)]
        if let redirect { form.append(("redirect_uri", redirect)) }
        return try await post("/oauth2/token", form: form, headers: headers)
    }

    /// Office's tokens after a complete web flow: access, refresh, sc.
    func officeTokens(username: String = "alice", password: String = SignInFixture.alicePassword) async throws -> (access: String, refresh: String, sc: String) {
        let (code, sc) = try await officeCode(username: username, password: password)
        let reply = try await redeem(code, sc: sc)
        #expect(reply.status == .ok, "token: \(reply.body)")
        return (try #require(reply.json["access_token"] as? String), try #require(reply.json["refresh_token"] as? String), sc)
    }

    /// POST /wopibootstrapper with an ecosystem operation.
    func ecosystemOperation(_ operation: String, token: String, sc: String?, wopiSrc: String? = nil) async throws -> HTTPReply {
        var headers = Self.bearer(token, sessionContext: sc)
        headers[HTTPField.Name("X-WOPI-EcosystemOperation")!] = operation
        if let wopiSrc { headers[HTTPField.Name("X-WOPI-WopiSrc")!] = wopiSrc }
        return try await post("/wopibootstrapper", headers: headers)
    }
}
