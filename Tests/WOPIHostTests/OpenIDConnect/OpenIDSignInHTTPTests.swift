import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TestSupport
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIOpenIDConnect

/// Sign-in through an OpenID Connect provider, over real HTTP, against the suite's stand-in provider
/// (``StandInIdentityProvider``): a browser's walk from the host to the provider and back, driven request by request.
@Suite("OpenID Connect sign-in over HTTP")
struct OpenIDSignInHTTPTests {
    typealias Visitor = WebFrontHTTPTests.Visitor
    typealias Key = StandInIdentityProvider.SigningKey

    /// A host signing in through a stand-in provider with `key`, with an audit log to read afterwards.
    struct Setup: Sendable {
        let host: TestHost
        let provider: StandInIdentityProvider
        let client: OpenIDConnectClient
        let auditPath: String
        let clock: HostClock

        /// The audit events so far.
        func auditEvents() throws -> [[String: Any]] {
            let text = (try? String(contentsOfFile: auditPath, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func refusals() throws -> [String] {
            try auditEvents().filter { $0["event"] as? String == "signin.refused" }.compactMap { $0["reason"] as? String }
        }
    }

    /// `requestTimeout` is generous but for the test of a slow provider: the suite runs many tests at once on few cores.
    static func run(key: Key? = nil, passwordsHidden: Bool = false, office: Bool = false, requestTimeout: Duration = .seconds(30),
                    appClientID: String? = nil, sessionLifetime: TimeInterval = 12 * 3600,
                    _ body: @escaping @Sendable (Setup) async throws -> Void) async throws {
        let auditPath = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-oidc-audit-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: auditPath) }
        let clock = HostClock()
        let provider = StandInIdentityProvider(key: try key ?? .rsa("rsa-1"), now: { clock.now() })
        try await provider.serve { provider in
            let configuration = try OpenIDConnectConfiguration(issuer: provider.issuer, clientID: StandInIdentityProvider.clientID,
                                                               clientSecret: StandInIdentityProvider.clientSecret, name: "Test ID",
                                                               requestTimeout: requestTimeout, discoveryTimeout: .seconds(60), now: { clock.now() })
            let client = try await OpenIDConnectClient.discover(configuration)
            let registration = office ? try OfficeRegistration(clientID: "office-test", clientSecret: "office-secret-0123456789",
                                                               redirectURI: "https://localhost", providerID: "tp_wopikit") : nil
            try await TestHost.run(monitor: HostMonitor(audit: try AuditLog(path: auditPath)), officeRegistration: registration,
                                   openIDSignIn: OpenIDSignIn(provider: client, passwordFormsHidden: passwordsHidden, appClientID: appClientID,
                                                              sessionLifetime: sessionLifetime)) { host in
                provider.registeredRedirectURI = TestHost.publicURL + OpenIDSignIn.callbackPath
                try await body(Setup(host: host, provider: provider, client: client, auditPath: auditPath, clock: clock))
            }
        }
    }

    /// What a browser does after following the host's "Sign in with …" link: to the provider, which approves at once, and
    /// back to the host's callback. Returns the provider's redirect to the callback and the host's answer to it.
    static func walk(_ visitor: inout Visitor, _ setup: Setup, start: String = OpenIDSignIn.startPath,
                     headers: [(String, String)] = []) async throws -> (callback: String, answer: WOPIResponse) {
        let begun = try await visitor.send(.GET, start, headers: headers)
        try #require(begun.status == 302, "the start sends the browser to the provider: \(begun.status) \(begun.html)")
        let authorize = try #require(begun.header("Location"))
        #expect(authorize.hasPrefix(setup.provider.issuer + "/authorize?"))
        var request = HTTPClientRequest(url: authorize)
        request.method = .GET
        let atProvider = try await setup.host.client.execute(request, timeout: .seconds(30))
        try #require(atProvider.status == .found, "the provider approves: \(atProvider.status)")
        let callback = try #require(atProvider.headers.first(name: "Location"))
        return (callback, try await visitor.send(.GET, String(callback.dropFirst(TestHost.publicURL.count)), headers: headers))
    }

    /// The host's answer to a whole sign-in in a new browser.
    static func signInStatus(_ setup: Setup) async throws -> Int {
        var visitor = Visitor(host: setup.host)
        return try await walk(&visitor, setup).answer.status
    }

    @Test("a first sign-in creates an account keyed by issuer and subject, named and shown from the claims, and signs the browser in")
    func firstSignInCreatesTheAccount() async throws {
        try await Self.run { setup in
            var visitor = Visitor(host: setup.host)
            let form = try await visitor.send(.GET, "/")
            #expect(form.html.contains("href=\"/signin/oidc\"") && form.html.contains("Sign in with Test ID"), "the web front offers the provider")
            #expect(form.html.contains("id=\"signin\""), "beside the password form")

            let (_, answer) = try await Self.walk(&visitor, setup)
            #expect(answer.status == 303 && answer.header("Location") == "/", "\(answer.status) \(answer.html)")
            #expect(visitor.cookies["wopi_session"] != nil)
            #expect(visitor.cookies["wopi_oidc"] == nil, "the binding cookie is cleared")
            let home = try await visitor.send(.GET, "/")
            #expect(home.status == 200 && home.html.contains("id=\"listing\""))

            // The request the provider got: code flow, PKCE S256, the exact callback, a nonce and a state.
            let query = setup.provider.lastAuthorizationQuery
            #expect(query["redirect_uri"] == TestHost.publicURL + "/signin/oidc/callback")
            #expect(query["code_challenge_method"] == "S256" && query["code_challenge"]?.count == 43)
            #expect(query["scope"]?.split(separator: " ").contains("openid") == true)
            #expect((query["nonce"]?.count ?? 0) >= 43 && (query["state"]?.count ?? 0) >= 43 && query["nonce"] != query["state"])

            let store = try #require(setup.host.folder.store as? any WOPIStore & IdentityLinkStore)
            let user = try #require(try await store.user(issuer: setup.provider.issuer, subject: setup.provider.subject))
            #expect(user.name == "j.doe" && user.displayName == "Jane Doe")
            #expect(user.passwordHash == .unusable)
            let events = try setup.auditEvents()
            #expect(events.contains { $0["event"] as? String == "user.added" && $0["user"] as? String == "j.doe" })
            #expect(events.contains { $0["event"] as? String == "signin.ok" && $0["user"] as? String == "j.doe" })

            // Again, in another browser: the same account.
            var again = Visitor(host: setup.host)
            let againAnswer = try await Self.walk(&again, setup).answer
            #expect(againAnswer.status == 303)
            #expect(try await store.users().count == 1)
            let audit = try String(contentsOfFile: setup.auditPath, encoding: .utf8)
            for secret in setup.provider.issuedSecrets + [StandInIdentityProvider.clientSecret] {
                #expect(!audit.contains(secret), "the audit log holds a code, a token or the client secret")
            }
        }
    }

    @Test("id_tokens signed with RS256, PS256, ES256 and EdDSA are accepted", arguments: ["RS256", "PS256", "ES256", "EdDSA"])
    func everyAlgorithm(_ algorithm: String) async throws {
        let key: Key = switch algorithm {
        case "PS256": try .rsa("ps", pss: true)
        case "ES256": .p256("es")
        case "EdDSA": .ed25519("ed")
        default: try .rsa("rs")
        }
        try await Self.run(key: key) { setup in
            var visitor = Visitor(host: setup.host)
            let answer = try await Self.walk(&visitor, setup).answer
            #expect(answer.status == 303 && visitor.cookies["wopi_session"] != nil, "\(algorithm): \(answer.status) \(answer.html)")
        }
    }

    static let expectedReasons: [StandInIdentityProvider.Fault: String] = [
        .wrongIssuer: "wrong_issuer", .wrongAudience: "wrong_audience", .expired: "expired", .issuedInTheFuture: "not_yet_valid",
        .notYetValid: "not_yet_valid", .wrongNonce: "nonce_mismatch", .missingNonce: "nonce_mismatch", .algorithmNone: "alg_not_allowed",
        .hmacWithPublicKey: "alg_not_allowed", .forgedSignature: "bad_signature", .anotherClientsToken: "wrong_audience",
        .severalAudiencesWithoutAzp: "wrong_audience", .unpublishedKey: "unknown_key", .algorithmSwapped: "alg_not_allowed",
    ]

    @Test("a bad id_token is refused with its reason audited, no token in the audit, no account, no session",
          arguments: StandInIdentityProvider.Fault.allCases.filter { $0 != .none })
    func badTokensAreRefused(_ fault: StandInIdentityProvider.Fault) async throws {
        try await Self.run { setup in
            setup.provider.fault = fault
            var visitor = Visitor(host: setup.host)
            let answer = try await Self.walk(&visitor, setup, headers: [("Accept-Language", "de-DE")]).answer
            #expect(answer.status == 400, "\(fault): \(answer.status)")
            #expect(answer.html.contains("Die Anmeldung mit Test ID ist nicht gelungen"), "\(fault): the page says so in the person's language")
            #expect(visitor.cookies["wopi_session"] == nil)
            #expect(try await setup.host.folder.store.users().isEmpty, "\(fault): no account was created")
            #expect(try setup.refusals() == [Self.expectedReasons[fault] ?? "?"], "\(fault)")
            let audit = try String(contentsOfFile: setup.auditPath, encoding: .utf8)
            for secret in setup.provider.issuedSecrets { #expect(!audit.contains(secret), "\(fault): a code or token reached the audit log") }
        }
    }

    @Test("state is single-use and bound to the browser: a replay, a missing state, another browser and a provider's error are refused")
    func stateIsSingleUseAndBound() async throws {
        try await Self.run { setup in
            var visitor = Visitor(host: setup.host)
            let (callback, first) = try await Self.walk(&visitor, setup)
            #expect(first.status == 303)
            let path = String(callback.dropFirst(TestHost.publicURL.count))

            var replay = Visitor(host: setup.host)
            #expect(try await replay.send(.GET, path).status == 400, "a replayed callback")
            var noState = Visitor(host: setup.host)
            #expect(try await noState.send(.GET, OpenIDSignIn.callbackPath + "?code=abc").status == 400)

            // Started in one browser, finished in another (a login CSRF): refused, and the state is spent.
            var victim = Visitor(host: setup.host)
            _ = try await victim.send(.GET, OpenIDSignIn.startPath)
            var attacker = Visitor(host: setup.host)
            let crossed = try await Self.walk(&attacker, setup).answer
            #expect(crossed.status == 303, "the attacker's own sign-in works")
            var attackerAgain = Visitor(host: setup.host)
            let begun = try await attackerAgain.send(.GET, OpenIDSignIn.startPath)
            let state = try #require(URLComponents(string: begun.header("Location") ?? "")?.queryItems?.first { $0.name == "state" }?.value)
            var other = Visitor(host: setup.host, cookies: ["wopi_oidc": "not-the-binding-secret"])
            #expect(try await other.send(.GET, OpenIDSignIn.callbackPath + "?code=x&state=\(state)").status == 400)
            #expect(try await attackerAgain.send(.GET, OpenIDSignIn.callbackPath + "?code=x&state=\(state)").status == 400, "spent")

            // The provider's own refusal.
            var denied = Visitor(host: setup.host)
            let deniedStart = try await denied.send(.GET, OpenIDSignIn.startPath)
            let deniedState = try #require(URLComponents(string: deniedStart.header("Location") ?? "")?.queryItems?.first { $0.name == "state" }?.value)
            #expect(try await denied.send(.GET, OpenIDSignIn.callbackPath + "?error=access_denied&state=\(deniedState)").status == 400)

            #expect(try setup.refusals() == ["state_unknown", "state_missing", "browser_mismatch", "state_unknown", "provider_error"])
            #expect(try await setup.host.folder.store.users().count == 1, "only the first sign-in made an account")
        }
    }

    @Test("a provider that does not answer in time: the page says so in the person's language within 5 s, other requests go on")
    func slowProvider() async throws {
        try await Self.run(requestTimeout: .seconds(4)) { setup in
            setup.provider.tokenDelay = .seconds(120)
            var visitor = Visitor(host: setup.host)
            let begun = try await visitor.send(.GET, OpenIDSignIn.startPath)
            var request = HTTPClientRequest(url: try #require(begun.header("Location")))
            request.method = .GET
            let callback = try #require(try await setup.host.client.execute(request, timeout: .seconds(30)).headers.first(name: "Location"))
            let started = ContinuousClock.now
            async let answer = visitor.send(.GET, String(callback.dropFirst(TestHost.publicURL.count)), headers: [("Accept-Language", "zh-CN")])
            // While the sign-in waits on the provider, the host answers others.
            let health = try await setup.host.send(.GET, "/health/live", token: nil)
            let healthAnswered = ContinuousClock.now
            #expect(health.status == 200)
            let page = try await answer
            let pageAnswered = ContinuousClock.now
            // The page waits out the host's 4 s bound on the provider; the other request does not wait for it.
            #expect(healthAnswered < pageAnswered, "another request was held up until the sign-in's answer")
            // Well before the provider's 120 s: the host's own bound answered (the suite runs many tests at once on few
            // cores, so the wall clock here says which bound it was, not how fast).
            #expect(pageAnswered - started < .seconds(60), "the page came after \(pageAnswered - started)")
            #expect(page.status == 503 && page.html.contains("Test ID 没有响应"), "\(page.status) \(page.html)")
            #expect(try setup.refusals() == ["provider_unavailable"])
            #expect(try await setup.host.folder.store.users().isEmpty)
        }
    }

    @Test("a key rotation at the provider needs no restart: an unknown kid reads the JWKS again, at most once a minute")
    func keyRotation() async throws {
        try await Self.run { setup in
            #expect(setup.provider.jwksRequests == 1, "read at start")
            var first = Visitor(host: setup.host)
            let firstAnswer = try await Self.walk(&first, setup).answer
            #expect(firstAnswer.status == 303)
            setup.provider.rotate(to: .p256("rotated-1"))
            // Two browsers at once meet the new key: one reading of the JWKS serves both.
            async let second = Self.signInStatus(setup)
            async let alongside = Self.signInStatus(setup)
            #expect(try await [second, alongside] == [303, 303], "the new key is fetched when a token names it")
            #expect(setup.provider.jwksRequests == 2)

            // Another rotation within the minute: no second reading; the sign-in is refused, not hammered through.
            setup.provider.rotate(to: .ed25519("rotated-2"))
            var third = Visitor(host: setup.host)
            let thirdAnswer = try await Self.walk(&third, setup).answer
            #expect(thirdAnswer.status == 400)
            #expect(setup.provider.jwksRequests == 2)
            #expect(try setup.refusals() == ["unknown_key"])
            setup.clock.advance(by: 61)
            var fourth = Visitor(host: setup.host)
            let fourthAnswer = try await Self.walk(&fourth, setup).answer
            #expect(fourthAnswer.status == 303, "a minute later the JWKS is read again")
            #expect(setup.provider.jwksRequests == 3)
        }
    }

    @Test("Office's authorization page offers the provider; signing in there continues to consent and Office's code")
    func officeAuthorizationPage() async throws {
        try await Self.run(office: true) { setup in
            var visitor = Visitor(host: setup.host)
            let query = FormFields([("client_id", "office-test"), ("redirect_uri", "https://localhost"), ("response_type", "code"),
                                    ("state", "office-state-1"), ("rs", "de-DE")]).encoded
            let page = try await visitor.send(.GET, "/oauth2/authorize?" + query)
            #expect(page.status == 200 && page.html.contains("Mit Test ID anmelden"), "\(page.html)")
            #expect(page.html.contains("id=\"signin\""), "beside the password form")
            let href = try #require(Self.attribute("href", ofElementWithID: "signin-provider", in: page.html))
            let (_, consent) = try await Self.walk(&visitor, setup, start: href)
            #expect(consent.status == 200 && consent.html.contains("name=\"decision\""), "\(consent.status) \(consent.html)")
            var fields = Self.hiddenFields(in: consent.html)
            fields.append(("decision", "allow"))
            let approved = try await visitor.send(.POST, "/oauth2/authorize", form: fields)
            #expect(approved.status == 302, "\(approved.status) \(approved.html)")
            let location = try #require(approved.header("Location"))
            let items = URLComponents(string: location)?.queryItems ?? []
            #expect(location.hasPrefix("https://localhost") && items.contains { $0.name == "code" } && items.first { $0.name == "state" }?.value == "office-state-1")
        }
    }

    @Test("with --oidc-only no page shows a password form and a password posted anyway is refused")
    func passwordsHidden() async throws {
        try await Self.run(passwordsHidden: true, office: true) { setup in
            let store = setup.host.folder.store
            _ = try await store.createUser(name: "carol", displayName: "Carol", passwordHash: try PasswordHash(hashing: "carol-password-1", logN: 10))
            var visitor = Visitor(host: setup.host)
            let form = try await visitor.send(.GET, "/")
            #expect(form.html.contains("Sign in with Test ID") && !form.html.contains("type=\"password\""))
            let posted = try await visitor.send(.POST, "/signin", form: [("csrf", Visitor.csrf(in: form) ?? ""), ("username", "carol"),
                                                                        ("password", "carol-password-1")])
            #expect(posted.status == 403 && visitor.cookies["wopi_session"] == nil)

            let query = FormFields([("client_id", "office-test"), ("redirect_uri", "https://localhost"), ("response_type", "code"), ("state", "s")]).encoded
            let page = try await visitor.send(.GET, "/oauth2/authorize?" + query)
            #expect(page.html.contains("Sign in with Test ID") && !page.html.contains("type=\"password\""))
            #expect(!page.html.contains("name=\"csrf\""), "no form at all")
            // What a hand-made form would post: the request, the CSRF cookie's value, and a password.
            let csrf = try #require(visitor.cookies["wopi_csrf"])
            let fields = [("client_id", "office-test"), ("redirect_uri", "https://localhost"), ("response_type", "code"), ("state", "s"),
                          ("csrf", csrf), ("step", "signin"), ("username", "carol"), ("password", "carol-password-1")]
            let refused = try await visitor.send(.POST, "/oauth2/authorize", form: fields)
            #expect(refused.status == 403 && refused.header("Location") == nil)
        }
    }

    @Test("a person is never matched by name: a local account with the same name stays apart until an operator links it")
    func neverMatchedByName() async throws {
        try await Self.run { setup in
            let store = try #require(setup.host.folder.store as? any WOPIStore & IdentityLinkStore)
            let local = try await store.createUser(name: "j.doe", displayName: "Local J", passwordHash: .unusable)
            var visitor = Visitor(host: setup.host)
            let visitorAnswer = try await Self.walk(&visitor, setup).answer
            #expect(visitorAnswer.status == 303)
            let created = try #require(try await store.user(issuer: setup.provider.issuer, subject: setup.provider.subject))
            #expect(created.id != local.id && created.name.hasPrefix("j.doe-"), "\(created.name)")

            // Linked explicitly, the provider's person signs in as the linked account.
            setup.provider.subject = "another-person"
            let linked = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
            try await store.linkIdentity(issuer: setup.provider.issuer, subject: "another-person", to: linked.id, now: Date())
            var alice = Visitor(host: setup.host)
            let aliceAnswer = try await Self.walk(&alice, setup).answer
            #expect(aliceAnswer.status == 303)
            let home = try await alice.send(.GET, "/")
            #expect(home.html.contains("Alice"), "signed in as the linked account")
            #expect(try await store.users().count == 3)
        }
    }

    // MARK: HTML

    static func hiddenFields(in html: String) -> [(String, String)] {
        html.components(separatedBy: "<input type=\"hidden\" ").dropFirst().compactMap { tail in
            guard let name = attribute("name", in: tail), let value = attribute("value", in: tail) else { return nil }
            return (name, value)
        }
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        guard let range = tag.range(of: "\(name)=\"") else { return nil }
        return unescape(String(tag[range.upperBound...].prefix { $0 != "\"" }))
    }

    static func attribute(_ name: String, ofElementWithID id: String, in html: String) -> String? {
        guard let range = html.range(of: "id=\"\(id)\"") else { return nil }
        let start = html[..<range.lowerBound].lastIndex(of: "<") ?? html.startIndex
        let end = html[range.upperBound...].firstIndex(of: ">") ?? html.endIndex
        return attribute(name, in: String(html[start..<end]))
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&#x2F;", with: "/")
            .replacingOccurrences(of: "&#x60;", with: "`").replacingOccurrences(of: "&amp;", with: "&")
    }
}
