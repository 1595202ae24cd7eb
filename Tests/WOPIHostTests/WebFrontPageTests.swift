import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOConcurrencyHelpers
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIStoreSQLite

/// The pages as templates render them: what a failing store gives, what a hostile name becomes,
/// and the one set of security headers on every kind of page.
@Suite("Web front pages")
struct WebFrontPageTests {
    static let password = "page-password-1"
    static let hostile = #"<img src=x onerror="alert('x')">&amp;"#
    static let escapedHostile = "&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;amp;"

    /// A host on a fresh SQLite store whose log lines are kept, with a signed-in browser.
    struct Host: Sendable {
        let storage: HostStorage
        let databasePath: String
        let backend: WOPIBackend
        let user: UserRecord
        let logs: LogRecorder

        static func run(displayName: String = "Carol", _ body: @Sendable (Host, any TestClientProtocol, String) async throws -> Void) async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-pages-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let storage = try HostStorage.embedded(data: folder)
            let backend = try await storage.backend(configuration: WOPIHostConfiguration(publicURL: URL(string: "https://wopi.invalid")!))
            let user = try await storage.store.createUser(name: "carol", displayName: displayName,
                                                          passwordHash: PasswordHash(hashing: password, logN: 10))
            let logs = LogRecorder()
            let app = Application(router: WOPIHostApplication.router(backend: backend, extensions: [AuthorizationRoutes()]), logger: Logger(label: "pages") { _ in logs.handler })
            let host = Host(storage: storage, databasePath: folder.appendingPathComponent("wopi.sqlite").path, backend: backend, user: user, logs: logs)
            try await app.test(.router) { client in
                try await body(host, client, try await signIn(client))
            }
        }

        /// Signs in through the form and returns the browser's `Cookie` header.
        static func signIn(_ client: any TestClientProtocol) async throws -> String {
            let form = try await client.execute(uri: "/", method: .get)
            let csrfCookie = try #require(form.headers[values: .setCookie].first { $0.hasPrefix("wopi_web_csrf=") })
            let pair = String(csrfCookie.split(separator: ";")[0])
            let token = String(pair.dropFirst("wopi_web_csrf=".count))
            var headers = HTTPFields()
            headers[.cookie] = pair
            headers[.contentType] = "application/x-www-form-urlencoded"
            let body = FormFields([("csrf", token), ("username", "carol"), ("password", password)]).encoded
            let signedIn = try await client.execute(uri: "/signin", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(signedIn.status == .seeOther)
            let session = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("wopi_session=") })
            return pair + "; " + String(session.split(separator: ";")[0])
        }
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, cookie: String, language: String? = nil) async throws -> TestResponse {
        var headers = HTTPFields()
        headers[.cookie] = cookie
        if let language { headers[.acceptLanguage] = language }
        return try await client.execute(uri: uri, method: .get, headers: headers)
    }

    @Test("a store that fails under a page gives the 503 page in the visitor's language and an error in the log, not a 404")
    func storeFailure() async throws {
        try await Host.run { host, client, cookie in
            let root = "/folders/\(host.user.rootContainerID.rawValue)"
            #expect(try await Self.get(client, root, cookie: cookie).status == .ok)
            // The folders' table disappears under the running host, as when a database is restored half-way.
            try await DatabaseQueue(path: host.databasePath).write { try $0.execute(sql: "ALTER TABLE containers RENAME TO containers_gone") }

            let page = try await Self.get(client, root, cookie: cookie, language: "de-DE")
            let html = String(buffer: page.body)
            #expect(page.status == .serviceUnavailable)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(html.contains(#"<html lang="de">"#))
            #expect(html.contains("<title>Vorübergehend nicht verfügbar · WOPIKit</title>"))
            #expect(html.contains("Ihre Dateien sind gerade nicht erreichbar."))
            #expect(page.headers[.contentSecurityPolicy] == HTMLPage.contentSecurityPolicy)

            let errors = host.logs.lines.filter { $0.level == .error }
            #expect(errors.count == 1)
            let line = try #require(errors.first)
            #expect(line.message == "page unavailable: the store failed")
            #expect(line.metadata["path"] == root)
            #expect(line.metadata["error"]?.contains("containers") == true, "the line names the failure: \(line.metadata)")
            // Nothing secret: neither the session cookie nor the pre-sign-in CSRF token.
            for secret in cookie.split(separator: ";").map({ String($0.split(separator: "=", maxSplits: 1)[1]) }) {
                #expect(!line.text.contains(secret))
            }

            // The root page reads the same table: the same answer.
            #expect(try await Self.get(client, "/", cookie: cookie).status == .serviceUnavailable)
        }
    }

    @Test("a share link's page on a failing store gives the 503 page too")
    func sharePageStoreFailure() async throws {
        try await Host.run { host, client, cookie in
            let file = try await host.storage.importFile(data: Data("x".utf8), as: "Notes.docx", into: host.user.rootContainerID)
            let link = try #require(URL(string: host.backend.shareLink(user: host.user.id, item: file.id, isContainer: false)))
            #expect(try await Self.get(client, link.path, cookie: "").status == .ok)
            try await DatabaseQueue(path: host.databasePath).write { try $0.execute(sql: "ALTER TABLE files RENAME TO files_gone") }
            let page = try await Self.get(client, link.path, cookie: "")
            #expect(page.status == .serviceUnavailable)
            #expect(String(buffer: page.body).contains(#"<html lang="en">"#))
            let line = try #require(host.logs.lines.first { $0.level == .error })
            #expect(line.metadata["path"] == "/share/<token>")
            #expect(!line.text.contains(link.lastPathComponent))
        }
    }

    @Test("hostile names and display names are escaped by the templates on every page that shows them")
    func hostileNames() async throws {
        try await Host.run(displayName: Self.hostile) { host, client, cookie in
            let store = host.storage.store
            let folder = try await store.createContainer(named: Self.hostile, in: host.user.rootContainerID)
            _ = try await host.storage.importFile(data: Data("x".utf8), as: "\(Self.hostile).docx", into: folder.id)
            let dave = try await store.createUser(name: "dave", displayName: Self.hostile, passwordHash: PasswordHash(hashing: "dave-password", logN: 10))
            let davesFile = try await host.storage.importFile(data: Data("y".utf8), as: "Plan.docx", into: dave.rootContainerID)
            _ = try await store.share(davesFile.id, kind: .file, with: host.user.id, role: .editor, now: Date())

            let root = String(buffer: try await Self.get(client, "/", cookie: cookie).body)
            let inner = String(buffer: try await Self.get(client, "/folders/\(folder.id.rawValue)", cookie: cookie).body)
            let link = try #require(URL(string: host.backend.shareLink(user: host.user.id, item: folder.id, isContainer: true)))
            let shared = String(buffer: try await Self.get(client, link.path, cookie: "").body)
            for (name, html) in [("root", root), ("folder", inner), ("share page", shared)] {
                #expect(!html.contains("<img src=x"), "\(name) carries the name as markup")
                #expect(html.contains(Self.escapedHostile), "\(name) does not show the escaped name")
            }
            // The display name in the header, the folder in the listing and its rename field, the owner in "Shared with me".
            #expect(root.contains(#"<span class="muted">Signed in as \#(Self.escapedHostile)</span>"#))
            #expect(root.contains(#"<li data-name="\#(Self.escapedHostile)" data-kind="folder">"#))
            #expect(root.contains(#"value="\#(Self.escapedHostile)" required"#))
            #expect(root.contains("Shared by \(Self.escapedHostile) · you can edit"))
            #expect(inner.contains("<title>\(Self.escapedHostile) · WOPIKit</title>"))
            #expect(shared.contains("<h1>\(Self.escapedHostile)</h1>"))
        }
    }

    @Test("every kind of page carries the one set of security headers")
    func securityHeaders() async throws {
        try await Host.run { host, client, cookie in
            let file = try await host.storage.importFile(data: Data("x".utf8), as: "Notes.docx", into: host.user.rootContainerID)
            let link = try #require(URL(string: host.backend.shareLink(user: host.user.id, item: file.id, isContainer: false)))
            let pages = [
                try await Self.get(client, "/", cookie: ""),
                try await Self.get(client, "/", cookie: cookie),
                try await Self.get(client, "/folders/\(ResourceID.random().rawValue)", cookie: cookie),
                try await Self.get(client, link.path, cookie: ""),
            ]
            for page in pages {
                #expect(page.headers[.contentSecurityPolicy] == HTMLPage.contentSecurityPolicy)
                #expect(page.headers[.xFrameOptions] == "DENY")
                #expect(page.headers[.referrerPolicy] == "no-referrer")
                #expect(page.headers[.xContentTypeOptions] == "nosniff")
                #expect(page.headers[.cacheControl] == "no-store")
                #expect(String(buffer: page.body).hasPrefix("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"))
            }
        }
    }

    @Test("templates lose their line breaks and indentation, and nothing else")
    func joiningLines() {
        #expect(PageTemplates.joiningLines("<p>\n  <a href=\"x\">a b</a>\n\t</p>\n") == "<p><a href=\"x\">a b</a></p>")
        #expect(PageTemplates.joiningLines("one  two ") == "one  two ")
    }
}

/// Keeps every log line a test's host writes.
final class LogRecorder: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        /// Message and metadata together, for checking that nothing secret is anywhere in the line.
        var text: String { ([message] + metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
    }

    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let recorded = NIOLockedValueBox<[Line]>([])

    var lines: [Line] { recorded.withLockedValue { $0 } }

    var handler: Handler { Handler(recorder: self) }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let line = Line(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" })
            recorder.recorded.withLockedValue { $0.append(line) }
        }
    }
}
