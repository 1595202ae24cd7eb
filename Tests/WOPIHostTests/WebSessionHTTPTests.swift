import Crypto
import Foundation
import NIOHTTP1
import Testing
import TestSupport
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIStorePostgres

/// Web sessions and CSRF at the edges, over HTTP as an attacker would try them: a cookie replayed
/// after signing out, a sign-out or sign-in another site sends, a planted pre-sign-in cookie.
@Suite("Web sessions over HTTP")
struct WebSessionHTTPTests {
    typealias Visitor = WebFrontHTTPTests.Visitor
    static let crossSite = [("Sec-Fetch-Site", "cross-site")]

    /// A signed-in visitor and the CSRF token of their folder page.
    static func signedIn(_ host: TestHost) async throws -> (Visitor, csrf: String) {
        var visitor = Visitor(host: host)
        let signIn = try await visitor.signIn()
        try #require(signIn.status == 303 && visitor.cookies["wopi_session"] != nil, "sign-in: \(signIn.status)")
        let csrf = try #require(Visitor.csrf(in: try await visitor.send(.GET, "/")))
        return (visitor, csrf)
    }

    @Test("after signing out, a saved cookie shows the sign-in form and its old CSRF token changes nothing")
    func replayAfterSignOut() async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            let signedIn = try await Self.signedIn(host)
            var visitor = signedIn.0
            let csrf = signedIn.csrf
            let saved = visitor.cookies
            let signOut = try await visitor.send(.POST, "/signout", form: [("csrf", csrf)])
            #expect(signOut.status == 303)
            #expect(signOut.values("Set-Cookie").contains { $0.hasPrefix("wopi_session=;") && $0.contains("Max-Age=0") })

            var thief = Visitor(host: host, cookies: saved)
            let home = try await thief.send(.GET, "/")
            #expect(home.status == 200 && home.html.contains("id=\"signin\"") && !home.html.contains("id=\"listing\""))
            let create = try await thief.send(.POST, "/folders/\(user.rootContainerID.rawValue)/create", form: [("csrf", csrf), ("name", "Stolen")])
            #expect(create.status == 303 && create.header("Location") == "/", "signed out: back to the form")
            #expect(try await host.folder.store.children(of: user.rootContainerID).containers.isEmpty)
            #expect(try await host.backend.webSessions.webSessions(of: user.id, now: host.clock.now()).isEmpty)
        }
    }

    @Test("a sign-out another site sends, or one without the form's token, changes nothing and sets no cookie")
    func crossSiteSignOut() async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            let signedIn = try await Self.signedIn(host)
            var visitor = signedIn.0
            let csrf = signedIn.csrf
            // What a form on another site makes the browser send: no cookie (SameSite=Lax), maybe Fetch Metadata.
            var stranger = Visitor(host: host)
            for headers in [[], Self.crossSite, [("Origin", "https://evil.example")]] {
                let refused = try await stranger.send(.POST, "/signout", form: [("csrf", csrf)], headers: headers)
                #expect(refused.values("Set-Cookie").isEmpty, "\(headers): \(refused.status)")
            }
            // With the cookie too (a browser that sends it anyway): still refused by Fetch Metadata and Origin.
            for headers in [Self.crossSite, [("Sec-Fetch-Site", "same-site")], [("Origin", "https://evil.example")],
                            [("Sec-Fetch-Site", "cross-site"), ("Origin", "null")]] {
                let refused = try await visitor.send(.POST, "/signout", form: [("csrf", csrf)], headers: headers)
                #expect(refused.status == 403, "\(headers)")
                #expect(refused.values("Set-Cookie").isEmpty, "\(headers)")
            }
            for form in [[], [("csrf", "guess")], [("csrf", csrf.tampered())]] {
                let refused = try await visitor.send(.POST, "/signout", form: form)
                #expect(refused.status == 403 && refused.values("Set-Cookie").isEmpty, "form \(form)")
            }
            #expect(try await visitor.send(.GET, "/").html.contains("id=\"listing\""), "still signed in")
            #expect(try await host.backend.webSessions.webSessions(of: user.id, now: host.clock.now()).count == 1)
            // The page's own form, from its own origin, signs out.
            let own = try await visitor.send(.POST, "/signout", form: [("csrf", csrf)],
                                             headers: [("Sec-Fetch-Site", "same-origin"), ("Origin", TestHost.publicURL)])
            #expect(own.status == 303)
            #expect(try await visitor.send(.GET, "/").html.contains("id=\"signin\""))
        }
    }

    @Test("a planted or foreign pre-sign-in cookie, or a sign-in form another site sends, does not sign in")
    func signInAtTheEdges() async throws {
        try await WebFrontHTTPTests.withUser { host, _ in
            let password = WebFrontHTTPTests.password
            func attempt(cookie token: String, headers: [(String, String)] = []) async throws -> (WOPIResponse, Visitor) {
                var victim = Visitor(host: host, cookies: ["wopi_web_csrf": token])
                let response = try await victim.send(.POST, "/signin", form: [("csrf", token), ("username", "carol"), ("password", password)],
                                                     headers: headers)
                return (response, victim)
            }
            // A value of the attacker's choosing, the old unsigned shape, and one signed by another host's key.
            let foreignKey = SymmetricKey(size: .bits256)
            for planted in [Base64URL.randomToken(), "planted", SignInFormToken.issue(key: foreignKey, now: host.clock.now())] {
                let (refused, victim) = try await attempt(cookie: planted)
                #expect(refused.status == 403, "\(planted.prefix(12))")
                #expect(victim.cookies["wopi_session"] == nil)
                #expect(refused.html.contains("This form has expired. Reload the page and try again."))
                #expect(!refused.html.localizedCaseInsensitiveContains("back to the app"))
            }
            // A token this host signed, but expired.
            let old = SignInFormToken.issue(key: try await host.backend.webFrontKey(), now: host.clock.now().addingTimeInterval(-SignInFormToken.lifetime - 1))
            #expect(try await attempt(cookie: old).0.status == 403)

            // A token this host signed, sent by another site or origin.
            let good = SignInFormToken.issue(key: try await host.backend.webFrontKey(), now: host.clock.now())
            for headers in [Self.crossSite, [("Sec-Fetch-Site", "same-site")], [("Sec-Fetch-Site", "unheard-of")],
                            [("Origin", "https://evil.example")], [("Origin", "https://wopi.invalid.evil.example")],
                            [("Sec-Fetch-Site", "same-origin"), ("Origin", "http://wopi.invalid")]] {
                let (refused, victim) = try await attempt(cookie: good, headers: headers)
                #expect(refused.status == 403, "\(headers)")
                #expect(victim.cookies["wopi_session"] == nil, "\(headers)")
            }
            // The host's own page: same-origin, its own Origin (any letter case), or a client that sends neither.
            // (A browser sends Origin: null from the host's pages, which are served with Referrer-Policy: no-referrer.)
            for headers in [[("Sec-Fetch-Site", "same-origin"), ("Origin", TestHost.publicURL)], [("Origin", "HTTPS://WOPI.invalid")],
                            [("Sec-Fetch-Site", "same-origin"), ("Origin", "null")],
                            [("Sec-Fetch-Site", "none")], []] {
                let (accepted, visitor) = try await attempt(cookie: good, headers: headers)
                #expect(accepted.status == 303, "\(headers)")
                #expect(visitor.cookies["wopi_session"] != nil, "\(headers)")
            }
        }
    }

    @Test("signing out and a refused cross-site sign-in are audited, without the session's secret")
    func audited() async throws {
        let auditPath = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-session-audit-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: auditPath) }
        try await TestHost.run(monitor: HostMonitor(audit: try AuditLog(path: auditPath))) { host in
            _ = try await host.folder.store.createUser(name: "carol", displayName: "Carol",
                                                       passwordHash: PasswordHash(hashing: WebFrontHTTPTests.password, logN: 10))
            let signedIn = try await Self.signedIn(host)
            var visitor = signedIn.0
            let secret = try #require(visitor.cookies["wopi_session"])
            var stranger = Visitor(host: host)
            let form = try await stranger.send(.GET, "/")
            let refused = try await stranger.send(.POST, "/signin", form: [("csrf", Visitor.csrf(in: form) ?? ""), ("username", "carol"),
                                                                           ("password", WebFrontHTTPTests.password)], headers: Self.crossSite)
            #expect(refused.status == 403)
            #expect(try await visitor.send(.POST, "/signout", form: [("csrf", signedIn.csrf)]).status == 303)

            let audit = try String(contentsOfFile: auditPath, encoding: .utf8)
            let events = try audit.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(events.contains { $0["event"] as? String == "signin.failed" && $0["reason"] as? String == "cross_site" }, "\(audit)")
            #expect(events.contains { $0["event"] as? String == "signout" && $0["user"] as? String == "carol" && $0["via"] as? String == "web" },
                    "\(audit)")
            #expect(!audit.contains(secret) && !audit.contains(signedIn.csrf), "no session secret or token in the trail")
        }
    }

    @Test("web sign-in errors are the web front's own words, in the page's language")
    func signInWords() async throws {
        try await WebFrontHTTPTests.withUser { host, _ in
            var visitor = Visitor(host: host)
            for (language, expected) in [("de", "Dieses Formular ist abgelaufen."), ("zh-Hans", "此表单已过期。"), ("en", "This form has expired.")] {
                let page = try await visitor.send(.POST, "/signin", form: [("username", "carol"), ("password", "x")],
                                                  headers: [("Accept-Language", language)])
                #expect(page.status == 403)
                #expect(page.html.contains(expected), "\(language)")
                for oauthWords in ["Go back to the app", "Kehren Sie zur App zurück", "请返回应用"] {
                    #expect(!page.html.contains(oauthWords), "\(language): the OAuth page's words")
                }
                #expect(page.html.contains("id=\"signin\""), "a fresh form to sign in with")
            }
        }
    }

    @Test("a session lasts 8 hours, records when it was last used, and the store keeps only the cookie's digest")
    func lifetimeAndDigest() async throws {
        try await WebFrontHTTPTests.withUser { host, user in
            var visitor = Visitor(host: host)
            let form = try await visitor.send(.GET, "/")
            let signIn = try await visitor.send(.POST, "/signin", form: [("csrf", Visitor.csrf(in: form) ?? ""), ("username", "carol"),
                                                                         ("password", WebFrontHTTPTests.password)],
                                                headers: [("User-Agent", "SessionTest/1.0")])
            let cookie = try #require(signIn.values("Set-Cookie").first { $0.hasPrefix("wopi_session=") })
            #expect(cookie.contains("Max-Age=28800"))
            let secret = try #require(visitor.cookies["wopi_session"])
            let signedInAt = host.clock.now()
            let stored = try #require(try await host.backend.webSessions.webSessions(of: user.id, now: signedInAt).first)
            #expect(stored.digest.hex == SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined())
            #expect(stored.userAgent == "SessionTest/1.0")
            // Times go through the database as seconds since 1970, exact to the microsecond.
            #expect(abs(stored.expiresAt.timeIntervalSince(signedInAt) - 8 * 3600) < 0.001)
            for file in ["wopi.sqlite", "wopi.sqlite-wal"] {
                let bytes = (try? Data(contentsOf: host.dataURL.appendingPathComponent(file))) ?? Data()
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret itself is stored nowhere (\(file))")
            }

            host.clock.advance(by: 120)
            #expect(try await visitor.send(.GET, "/").html.contains("id=\"listing\""))
            let lastSeen = try #require(try await host.backend.webSessions.webSessions(of: user.id, now: host.clock.now()).first?.lastSeenAt)
            #expect(abs(lastSeen.timeIntervalSince(signedInAt) - 120) < 0.001)

            host.clock.advance(by: 8 * 3600 - 121)
            #expect(try await visitor.send(.GET, "/").html.contains("id=\"listing\""), "one second before the end")
            host.clock.advance(by: 1)
            #expect(try await visitor.send(.GET, "/").html.contains("id=\"signin\""), "ended after 8 hours")
        }
    }

    @Test("two hosts on one PostgreSQL: a session begun on one is valid on the other, and signing out on either ends it")
    func acrossHosts() async throws {
        let database = try await StoreUnderTest.newPostgresDatabase()
        try await TestHost.run(database: database) { first in
            let user = try await first.folder.store.createUser(name: "carol", displayName: "Carol",
                                                               passwordHash: PasswordHash(hashing: WebFrontHTTPTests.password, logN: 10))
            try await TestHost.run(database: database) { second in
                var onFirst = try await Self.signedIn(first).0
                var onSecond = Visitor(host: second, cookies: onFirst.cookies)
                let page = try await onSecond.send(.GET, "/")
                #expect(page.html.contains("id=\"listing\""), "the second host knows the session")
                let csrf = try #require(Visitor.csrf(in: page))
                #expect(try await onSecond.send(.POST, "/signout", form: [("csrf", csrf)]).status == 303)
                #expect(try await onFirst.send(.GET, "/").html.contains("id=\"signin\""), "ended on the first host too")
                #expect(try await second.backend.webSessions.webSessions(of: user.id, now: second.clock.now()).isEmpty)
            }
        }
    }
}
