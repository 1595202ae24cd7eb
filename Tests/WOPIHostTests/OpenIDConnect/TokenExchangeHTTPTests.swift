import Foundation
import NIOHTTP1
import Testing
import TestSupport
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIOpenIDConnect

/// The provider's app answering Office's app-to-app sign-in with its identity provider's token (OAuth 2.0 Token
/// Exchange, RFC 8693, at `POST /oauth2/token`), over real HTTP, against the suite's stand-in provider.
@Suite("Token exchange over HTTP")
struct TokenExchangeHTTPTests {
    typealias Setup = OpenIDSignInHTTPTests.Setup
    typealias Visitor = WebFrontHTTPTests.Visitor

    static let appClientID = "provider-app"
    static let officeBasic = "Basic " + Data("office-test:office-secret-0123456789".utf8).base64EncodedString()

    /// The exchange the provider's app sends for Office's request `action`.
    static func exchangeForm(_ token: String, audience: String = "office-test", client: String = FirstPartyApp.clientID,
                             type: String = "urn:ietf:params:oauth:token-type:id_token") -> [(String, String)] {
        [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", client), ("subject_token", token),
         ("subject_token_type", type), ("audience", audience), ("scope", "wopi"), ("action", "act-1")]
    }

    /// Office redeeming `code` with its secret and the session context; the JSON answer.
    static func redeem(_ visitor: inout Visitor, code: String, sc: String) async throws -> WOPIResponse {
        try await visitor.send(.POST, "/oauth2/token", form: [("grant_type", "authorization_code"), ("code", code)],
                               headers: [("Authorization", officeBasic), ("X-WOPI-SessionContext", sc)])
    }

    @Test("the app's id_token buys Office a code it redeems: no password, the account made on first use, signin.ok audited, no token in the audit")
    func exchangeAnswersOffice() async throws {
        try await OpenIDSignInHTTPTests.run(office: true, appClientID: Self.appClientID) { setup in
            let token = try setup.provider.idToken(nonce: nil, audience: Self.appClientID)
            var visitor = Visitor(host: setup.host)
            let answer = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token))
            #expect(answer.status == 200, "\(answer.text)")
            let json = try answer.json()
            #expect(json["issued_token_type"]?.string == "urn:wopikit:params:oauth:token-type:authorization_code")
            #expect(json["token_type"]?.string == "N_A" && json["action"]?.string == "act-1")
            let code = try #require(json["access_token"]?.string)
            #expect(json["code"]?.string == code)
            let sc = try #require(json["sc"]?.string)

            let tokens = try await Self.redeem(&visitor, code: code, sc: sc)
            #expect(tokens.status == 200, "\(tokens.text)")
            let access = try #require(try tokens.json()["access_token"]?.string)
            let bootstrap = try await visitor.send(.GET, "/wopibootstrapper",
                                                   headers: [("Authorization", "Bearer \(access)"), ("X-WOPI-SessionContext", sc)])
            #expect(bootstrap.status == 200 && bootstrap.text.contains("\"SignInName\":\"j.doe\""), "\(bootstrap.text)")

            let store = try #require(setup.host.folder.store as? any WOPIStore & IdentityLinkStore)
            let user = try #require(try await store.user(issuer: setup.provider.issuer, subject: setup.provider.subject))
            #expect(user.name == "j.doe" && user.passwordHash == .unusable)
            let events = try setup.auditEvents()
            #expect(events.contains { $0["event"] as? String == "signin.ok" && $0["via"] as? String == "token-exchange" })
            let audit = try String(contentsOfFile: setup.auditPath, encoding: .utf8)
            #expect(!audit.contains(token) && !audit.contains(code) && !audit.contains(access))

            // The same token again: the same account, another code.
            let again = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token))
            #expect(again.status == 200 && (try? again.json()["code"]?.string) != code)
            #expect(try await store.users().count == 1)
        }
    }

    static let faults = StandInIdentityProvider.Fault.allCases.filter { ![.none, .wrongNonce, .missingNonce].contains($0) }

    @Test("a token that is not the app's own, or not the provider's, is refused as invalid_grant with its reason audited; no account, no code",
          arguments: faults)
    func badTokensAreRefused(_ fault: StandInIdentityProvider.Fault) async throws {
        try await OpenIDSignInHTTPTests.run(office: true, appClientID: Self.appClientID) { setup in
            setup.provider.fault = fault
            let token = try setup.provider.idToken(nonce: nil, audience: Self.appClientID)
            var visitor = Visitor(host: setup.host)
            let answer = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token))
            #expect(answer.status == 400 && (try? answer.json()["error"]?.string) == "invalid_grant", "\(fault): \(answer.status) \(answer.text)")
            #expect((try? answer.json()["code"]) == nil)
            #expect(try await setup.host.folder.store.users().isEmpty, "\(fault): no account was created")
            #expect(try setup.refusals() == [OpenIDSignInHTTPTests.expectedReasons[fault] ?? "?"], "\(fault)")
            let audit = try String(contentsOfFile: setup.auditPath, encoding: .utf8)
            #expect(!audit.contains(token), "\(fault): the token reached the audit log")
        }
    }

    @Test("the host's own id_token, another client, an unknown audience and missing fields are refused; a host without an app client has no exchange")
    func badExchangesAreRefused() async throws {
        try await OpenIDSignInHTTPTests.run(office: true, appClientID: Self.appClientID) { setup in
            var visitor = Visitor(host: setup.host)
            // An id_token the provider issued to the host itself is not the app's.
            let hostToken = try setup.provider.idToken(nonce: nil)
            let own = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(hostToken))
            #expect(own.status == 400 && (try? own.json()["error"]?.string) == "invalid_grant", "\(own.text)")
            #expect(try setup.refusals() == ["wrong_audience"])

            let token = try setup.provider.idToken(nonce: nil, audience: Self.appClientID)
            // Office itself, authenticated, may not exchange the app's token.
            let office = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token, client: "office-test"),
                                                headers: [("Authorization", Self.officeBasic)])
            #expect((try? office.json()["error"]?.string) == "unauthorized_client", "\(office.status) \(office.text)")
            let nowhere = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token, audience: "nobody"))
            #expect(nowhere.status == 400 && (try? nowhere.json()["error"]?.string) == "invalid_target", "\(nowhere.text)")
            let ownApp = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token, audience: FirstPartyApp.clientID))
            #expect((try? ownApp.json()["error"]?.string) == "unauthorized_client", "\(ownApp.text)")
            let saml = try await visitor.send(.POST, "/oauth2/token",
                                              form: Self.exchangeForm(token, type: "urn:ietf:params:oauth:token-type:saml2"))
            #expect((try? saml.json()["error"]?.string) == "invalid_request", "\(saml.text)")
            let missing = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token).filter { $0.0 != "subject_token" })
            #expect(missing.status == 400 && (try? missing.json()["error"]?.string) == "invalid_request")
            #expect(try await setup.host.folder.store.users().isEmpty, "nothing was created")
        }
        try await OpenIDSignInHTTPTests.run(office: true) { setup in
            var visitor = Visitor(host: setup.host)
            let token = try setup.provider.idToken(nonce: nil, audience: Self.appClientID)
            let answer = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token))
            #expect((try? answer.json()["error"]?.string) == "unsupported_grant_type", "\(answer.text)")
        }
    }

    @Test("a grant made through the provider ends after the session lifetime however often it is refreshed; a password grant slides on")
    func providerGrantsHaveABoundedLifetime() async throws {
        try await OpenIDSignInHTTPTests.run(office: true, appClientID: Self.appClientID, sessionLifetime: 7200) { setup in
            var visitor = Visitor(host: setup.host)
            let token = try setup.provider.idToken(nonce: nil, audience: Self.appClientID)
            let exchanged = try await visitor.send(.POST, "/oauth2/token", form: Self.exchangeForm(token)).json()
            let sc = try #require(exchanged["sc"]?.string)
            let code = try #require(exchanged["code"]?.string)
            var refresh = try #require(try await Self.redeem(&visitor, code: code, sc: sc).json()["refresh_token"]?.string)

            let store = setup.host.folder.store
            _ = try await store.createUser(name: "carol", displayName: "Carol", passwordHash: try PasswordHash(hashing: "carol-password-1", logN: 10))
            var passwordRefresh = try await Self.passwordGrant(&visitor, setup: setup)

            func refreshed(_ presented: String, sc: String?) async throws -> WOPIResponse {
                var headers = [("Authorization", Self.officeBasic)]
                if let sc { headers.append(("X-WOPI-SessionContext", sc)) }
                return try await visitor.send(.POST, "/oauth2/token", form: [("grant_type", "refresh_token"), ("refresh_token", presented)],
                                              headers: headers)
            }
            // Refreshed within the lifetime: fine, and a refresh does not push the end further.
            for _ in 0..<3 {
                setup.host.clock.advance(by: 2000)
                let next = try await refreshed(refresh, sc: sc)
                #expect(next.status == 200, "\(next.text)")
                refresh = try #require(try next.json()["refresh_token"]?.string)
                let password = try await refreshed(passwordRefresh.token, sc: passwordRefresh.sc)
                #expect(password.status == 200, "\(password.text)")
                passwordRefresh.token = try #require(try password.json()["refresh_token"]?.string)
            }
            setup.host.clock.advance(by: 1300)
            let late = try await refreshed(refresh, sc: sc)
            #expect(late.status == 400 && (try? late.json()["error"]?.string) == "invalid_grant", "past the session lifetime: \(late.status) \(late.text)")
            let password = try await refreshed(passwordRefresh.token, sc: passwordRefresh.sc)
            #expect(password.status == 200, "a password grant is not bound to the provider's session: \(password.text)")
        }
    }

    /// Office's refresh token and session context for carol, signed in with her password on the authorization page.
    static func passwordGrant(_ visitor: inout Visitor, setup: Setup) async throws -> (token: String, sc: String?) {
        let query = FormFields([("client_id", "office-test"), ("redirect_uri", "https://localhost"), ("response_type", "code"), ("state", "s")]).encoded
        let page = try await visitor.send(.GET, "/oauth2/authorize?" + query)
        var fields = OpenIDSignInHTTPTests.hiddenFields(in: page.html)
        fields += [("username", "carol"), ("password", "carol-password-1")]
        var answer = try await visitor.send(.POST, "/oauth2/authorize", form: fields)
        if answer.status == 200, answer.html.contains("name=\"decision\"") {
            answer = try await visitor.send(.POST, "/oauth2/authorize",
                                            form: OpenIDSignInHTTPTests.hiddenFields(in: answer.html) + [("decision", "allow")])
        }
        let location = try #require(answer.header("Location"), "\(answer.status) \(answer.html)")
        let items = URLComponents(string: location)?.queryItems ?? []
        let code = try #require(items.first { $0.name == "code" }?.value)
        let sc = items.first { $0.name == "sc" }?.value
        var headers = [("Authorization", officeBasic)]
        if let sc { headers.append(("X-WOPI-SessionContext", sc)) }
        let tokens = try await visitor.send(.POST, "/oauth2/token", form: [("grant_type", "authorization_code"), ("code", code),
                                                                          ("redirect_uri", "https://localhost")], headers: headers)
        return (try #require(try tokens.json()["refresh_token"]?.string, "\(tokens.text)"), sc)
    }
}
