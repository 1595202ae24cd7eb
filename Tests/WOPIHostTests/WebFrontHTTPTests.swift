import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// The web front over plain HTTP, as a browser without JavaScript uses it: cookies, CSRF, the
/// sign-in throttle, a multipart upload, and what a forged or foreign request gets.
@Suite("Web front over HTTP")
struct WebFrontHTTPTests {
    static let password = "web-password-1"

    /// A browser without JavaScript: a cookie jar over ``TestHost``.
    struct Visitor {
        let host: TestHost
        var cookies: [String: String] = [:]

        mutating func send(_ method: HTTPMethod, _ path: String, form: [(String, String)]? = nil, contentType: String? = nil,
                           body: Data? = nil, headers extra: [(String, String)] = []) async throws -> WOPIResponse {
            var headers = [("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))] + extra
            var payload: HTTPClientRequest.Body?
            if let form {
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                payload = .bytes(ByteBuffer(string: FormFields(form).encoded))
            } else if let body, let contentType {
                headers.append(("Content-Type", contentType))
                payload = .bytes(ByteBuffer(bytes: body))
            }
            let response = try await host.send(method, path, token: nil, headers: headers, body: payload)
            for cookie in response.values("Set-Cookie") {
                let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0])
                let value = pair.count > 1 ? String(pair[1]) : ""
                if cookie.contains("Max-Age=0") || value.isEmpty { cookies[name] = nil } else { cookies[name] = value }
            }
            return response
        }

        /// The value of the first hidden `csrf` field on a page.
        static func csrf(in page: WOPIResponse) -> String? {
            guard let range = page.html.range(of: "name=\"csrf\" value=\"") else { return nil }
            return String(page.html[range.upperBound...].prefix { $0 != "\"" })
        }

        mutating func signIn(_ user: String = "carol", password: String = WebFrontHTTPTests.password) async throws -> WOPIResponse {
            let form = try await send(.GET, "/")
            return try await send(.POST, "/signin", form: [("csrf", Self.csrf(in: form) ?? ""), ("username", user), ("password", password)])
        }
    }

    static func withUser(maximumFileSize: Int64 = 512 * 1024 * 1024,
                         _ body: (TestHost, UserRecord) async throws -> Void) async throws {
        try await TestHost.run(maximumFileSize: maximumFileSize) { host in
            let user = try await host.folder.store.createUser(name: "carol", displayName: "Carol", passwordHash: PasswordHash(hashing: password, logN: 10))
            try await body(host, user)
        }
    }

    @Test("signing in sets an HttpOnly, SameSite, Secure session cookie; signing out clears it")
    func sessionCookie() async throws {
        try await Self.withUser { host, user in
            var visitor = Visitor(host: host)
            let signIn = try await visitor.signIn()
            #expect(signIn.status == 303)
            #expect(signIn.header("Location") == "/")
            let cookie = try #require(signIn.values("Set-Cookie").first { $0.hasPrefix("wopi_session=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Secure"))
            let page = try await visitor.send(.GET, "/")
            #expect(page.status == 200)
            #expect(page.html.contains("id=\"listing\""))
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
            let signOut = try await visitor.send(.POST, "/signout", form: [("csrf", Visitor.csrf(in: page) ?? "")])
            #expect(signOut.status == 303)
            #expect(visitor.cookies["wopi_session"] == nil)
            #expect(try await visitor.send(.GET, "/").html.contains("id=\"signin\""))
            _ = user
        }
    }

    @Test("a form without the session's CSRF token changes nothing")
    func csrfRequired() async throws {
        try await Self.withUser { host, user in
            var visitor = Visitor(host: host)
            _ = try await visitor.signIn()
            let refused = try await visitor.send(.POST, "/folders/\(user.rootContainerID.rawValue)/create", form: [("name", "Evil")])
            #expect(refused.status == 403)
            let wrong = try await visitor.send(.POST, "/folders/\(user.rootContainerID.rawValue)/create", form: [("csrf", "guess"), ("name", "Evil")])
            #expect(wrong.status == 403)
            #expect(try await host.folder.store.children(of: user.rootContainerID).containers.isEmpty)
            // Sign-in itself needs the pre-session token too.
            var stranger = Visitor(host: host)
            let forged = try await stranger.send(.POST, "/signin", form: [("username", "carol"), ("password", Self.password)])
            #expect(forged.status == 403)
            #expect(stranger.cookies["wopi_session"] == nil)
        }
    }

    @Test("a forged, unknown or expired session cookie is not a session")
    func forgedSession() async throws {
        try await Self.withUser { host, user in
            let (_, expiring) = try await host.backend.startWebSession(for: user, userAgent: nil)
            host.clock.advance(by: WebSession.lifetime + 1)
            let (_, live) = try await host.backend.startWebSession(for: user, userAgent: nil)
            for value in [expiring, Base64URL.randomToken(), "garbage", ""] {
                var visitor = Visitor(host: host, cookies: ["wopi_session": value])
                let page = try await visitor.send(.GET, "/folders/\(user.rootContainerID.rawValue)")
                #expect(page.status == 303, "cookie \(value.prefix(8))")
            }
            var visitor = Visitor(host: host, cookies: ["wopi_session": live])
            #expect(try await visitor.send(.GET, "/folders/\(user.rootContainerID.rawValue)").status == 200)
        }
    }

    @Test("wrong passwords are throttled like on the OAuth pages")
    func throttle() async throws {
        try await Self.withUser { host, _ in
            var visitor = Visitor(host: host)
            let limit = AuthorizationPolicy().maximumFailedSignIns
            for _ in 0..<limit {
                #expect(try await visitor.signIn(password: "wrong").status == 401)
            }
            let blocked = try await visitor.signIn(password: Self.password)
            #expect(blocked.status == 429)
            #expect(blocked.header("Retry-After") != nil)
            #expect(visitor.cookies["wopi_session"] == nil)
        }
    }

    @Test("a multipart upload without JavaScript streams in, and one above the limit is refused whole")
    func multipartUpload() async throws {
        try await Self.withUser(maximumFileSize: 4096) { host, user in
            var visitor = Visitor(host: host)
            _ = try await visitor.signIn()
            let page = try await visitor.send(.GET, "/")
            let csrf = try #require(Visitor.csrf(in: page))
            func multipart(_ files: [(String, Data)], csrfFirst: Bool = true) -> Data {
                var body = Data()
                let csrfPart = Data("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n".utf8)
                if csrfFirst { body += csrfPart }
                for (name, content) in files {
                    body += Data("--XyZ\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(name)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
                    body += content + Data("\r\n".utf8)
                }
                if !csrfFirst { body += csrfPart }
                return body + Data("--XyZ--\r\n".utf8)
            }
            let path = "/folders/\(user.rootContainerID.rawValue)/upload"
            let type = "multipart/form-data; boundary=XyZ"
            let ok = try await visitor.send(.POST, path, contentType: type,
                                            body: multipart([("Notes.docx", Data(repeating: 1, count: 3000)), ("a%22b.txt", Data("hi".utf8))]))
            #expect(ok.status == 303)
            let names = try await host.folder.store.children(of: user.rootContainerID).files.map(\.name)
            #expect(Set(names) == [NameRules.sanitized("a\"b.txt"), "Notes.docx"])
            #expect(try await host.folder.store.file(named: "Notes.docx", in: user.rootContainerID)?.size == 3000)

            let tooLarge = try await visitor.send(.POST, path, contentType: type,
                                                  body: multipart([("Small.docx", Data("s".utf8)), ("Huge.docx", Data(repeating: 2, count: 5000))]))
            #expect(tooLarge.status == 413)
            #expect(tooLarge.html.contains("Huge.docx is larger than the limit of 4 KiB."))
            #expect(try await host.folder.store.children(of: user.rootContainerID).files.count == 2)

            let late = try await visitor.send(.POST, path, contentType: type, body: multipart([("Late.docx", Data("x".utf8))], csrfFirst: false))
            #expect(late.status == 403)
            #expect(try await host.folder.store.file(named: "Late.docx", in: user.rootContainerID) == nil)
        }
    }

    @Test("another user's files and folders are not found")
    func foreignItems() async throws {
        try await Self.withUser { host, _ in
            let dave = try await host.makeUser("dave")
            let davesFile = try await host.addFile("Secret.docx", Data("s".utf8), owner: dave)
            var visitor = Visitor(host: host)
            _ = try await visitor.signIn()
            let csrf = try #require(Visitor.csrf(in: try await visitor.send(.GET, "/")))
            #expect(try await visitor.send(.GET, "/folders/\(dave.rootContainerID.rawValue)").status == 404)
            #expect(try await visitor.send(.GET, "/files/\(davesFile.id.rawValue)/download").status == 404)
            #expect(try await visitor.send(.POST, "/files/\(davesFile.id.rawValue)/delete", form: [("csrf", csrf)]).status == 404)
            #expect(try await visitor.send(.POST, "/files/\(davesFile.id.rawValue)/rename", form: [("csrf", csrf), ("name", "x.docx")]).status == 404)
            #expect(try await host.folder.store.file(id: davesFile.id)?.name == "Secret.docx")
        }
    }
}

extension WOPIResponse {
    /// The whole body as text.
    var html: String { String(decoding: body, as: UTF8.self) }
}
