import Crypto
import Foundation
import HTTPTypes
import OfficeURLScheme
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// Sign-in end to end over HTTP: the bootstrapper challenge, the web flow, and app-to-app.
@Suite struct AuthorizationFlowTests {
    @Test func unauthenticatedBootstrapperAnswersOneChallengeTheLibraryParses() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            for headers: HTTPFields in [[:], SignInFixture.bearerHeaders("not-a-token"), SignInFixture.bearerHeaders("")] {
                let reply = try await http.get("/wopibootstrapper", headers: headers)
                #expect(reply.status == .unauthorized)
                let challenges = reply.headers[values: .wwwAuthenticate]
                #expect(challenges.count == 1)
                let header = try #require(challenges.first)
                #expect(header.hasPrefix("Bearer authorization_uri=\""))
                let challenge = try BootstrapperChallenge(headerValue: header)
                #expect(challenge.authorizationURI == "https://wopi.example.test/oauth2/authorize")
                #expect(challenge.tokenIssuanceURI == "https://wopi.example.test/oauth2/token")
                #expect(challenge.providerID == "tp_wopikit")
                #expect(challenge.iOSURLSchemes == ["contoso", "contoso-emm"])
                // UrlSchemes travels URL-encoded: no raw quote, comma or brace inside the value.
                #expect(header.contains("UrlSchemes=\"%7B%22iOS%22%3A%5B%22contoso%22%2C%22contoso-emm%22%5D%7D\""))
            }
            // A POST without a token is challenged the same way.
            let post = try await http.post("/wopibootstrapper", headers: [HTTPField.Name("X-WOPI-EcosystemOperation")!: "GET_ROOT_CONTAINER"])
            #expect(post.status == .unauthorized)
            #expect(post.headers[values: .wwwAuthenticate].count == 1)
        }
    }

    @Test func webFlowFromSignInPageToCheckFileInfo() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            // Sign-in page, with parameter names in mixed case as Office sends some of them.
            let uri = "/oauth2/authorize?Client_ID=\(SignInFixture.officeClientID)&Redirect_Uri=https%3A%2F%2Flocalhost&response_type=code"
                + "&scope=wopi&rs=en-US&Build=16.0.1&Platform=iOS&STATE=s%20t%26a"
            let page = try await http.get(uri)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.body.contains("name=\"viewport\""))
            #expect(page.body.components(separatedBy: "<form ").count == 2)
            let cookie = try #require(page.cookie)
            #expect(page.headers[.setCookie]?.contains("HttpOnly") == true)
            #expect(page.hiddenFields.contains { $0.0 == "csrf" })

            // Password, then the consent page, then allow.
            let consent = try await http.submit(page, cookie: cookie, [("username", "alice"), ("password", SignInFixture.alicePassword)])
            #expect(consent.status == .ok)
            #expect(consent.body.contains("Microsoft Office"))
            #expect(consent.body.contains("Alice &lt;Admin&gt;"))
            #expect(consent.body.contains("<button type=\"submit\" name=\"decision\" value=\"allow\">"))
            let done = try await http.submit(consent, cookie: cookie, [("decision", "allow")])
            #expect(done.status == .found)
            let location = try #require(done.location)
            #expect(location.hasPrefix("https://localhost?code="))
            let parameters = done.redirectParameters
            #expect(parameters["state"] == "s t&a")
            let code = try #require(parameters["code"])
            let sc = try #require(parameters["sc"])

            // Token, with HTTP Basic client credentials and the session context.
            let tokens = try await http.redeem(code, sc: sc)
            #expect(tokens.status == .ok)
            #expect(tokens.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(tokens.headers[.cacheControl] == "no-store")
            let json = tokens.json
            #expect(json["token_type"] as? String == "Bearer")
            #expect((json["expires_in"] as? NSNumber)?.intValue == 3600)
            #expect(tokens.body.contains("\"expires_in\":3600"))
            let firstAccess = try #require(json["access_token"] as? String)
            let firstRefresh = try #require(json["refresh_token"] as? String)

            // Refresh rotates: a new pair, and the old refresh token is spent.
            var refreshHeaders = HTTPFields()
            refreshHeaders[HTTPField.Name("X-WOPI-SessionContext")!] = sc
            let refreshed = try await http.post("/oauth2/token", form: [("grant_type", "refresh_token"), ("refresh_token", firstRefresh),
                                                                        ("client_id", SignInFixture.officeClientID),
                                                                        ("client_secret", SignInFixture.officeSecret)],
                                                headers: refreshHeaders)
            #expect(refreshed.status == .ok)
            let access = try #require(refreshed.json["access_token"] as? String)
            let refresh = try #require(refreshed.json["refresh_token"] as? String)
            #expect(access != firstAccess && refresh != firstRefresh)

            // Bootstrap, with both header forms.
            for colon in [false, true] {
                let bootstrap = try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access, colon: colon, sc: sc))
                #expect(bootstrap.status == .ok)
                let info = try #require(bootstrap.json["Bootstrap"] as? [String: Any])
                #expect(info["UserId"] as? String == fixture.alice.id.rawValue)
                #expect(info["SignInName"] as? String == "alice")
                #expect(info["UserFriendlyName"] as? String == "Alice <Admin>")
                #expect((info["EcosystemUrl"] as? String)?.hasPrefix("https://wopi.example.test/wopi/ecosystem?access_token=") == true)
            }
            // The session context is checked.
            let withoutSC = try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access))
            #expect(withoutSC.status == .unauthorized)
            let wrongSC = try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access, sc: "other"))
            #expect(wrongSC.status == .unauthorized)

            // GET_ROOT_CONTAINER.
            let root = try await http.ecosystemOperation("GET_ROOT_CONTAINER", token: access, sc: sc)
            #expect(root.status == .ok)
            let rootInfo = try #require(root.json["RootContainerInfo"] as? [String: Any])
            let pointer = try #require(rootInfo["ContainerPointer"] as? [String: Any])
            #expect((pointer["Url"] as? String)?.hasPrefix("https://wopi.example.test/wopi/containers/\(fixture.alice.rootContainerID)?access_token=") == true)
            #expect(root.json["Bootstrap"] != nil)

            // GET_NEW_ACCESS_TOKEN for file A, then CheckFileInfo with it.
            let minted = try await http.ecosystemOperation("GET_NEW_ACCESS_TOKEN", token: access, sc: sc,
                                                           wopiSrc: fixture.backend.wopiSrc(.file(fixture.fileA.id)))
            #expect(minted.status == .ok)
            let tokenInfo = try #require(minted.json["AccessTokenInfo"] as? [String: Any])
            let wopiToken = try #require(tokenInfo["AccessToken"] as? String)
            let expiry = try #require((tokenInfo["AccessTokenExpiry"] as? NSNumber)?.int64Value)
            #expect(minted.json["Bootstrap"] != nil)
            // No later than the OAuth token that asked (1 hour), though WOPI tokens may live 10 hours.
            let oauthExpiry = fixture.clock.now.addingTimeInterval(3600).millisecondsSince1970
            #expect(expiry <= oauthExpiry && expiry > oauthExpiry - 5000)
            #expect(wopiToken != access)

            let checkFileInfo = try await http.get("/wopi/files/\(fixture.fileA.id)?access_token=\(wopiToken)")
            #expect(checkFileInfo.status == .ok)
            #expect(checkFileInfo.json["BaseFileName"] as? String == "A.docx")
            #expect(checkFileInfo.json["UserId"] as? String == fixture.alice.id.rawValue)

            // The OAuth token itself opens no file.
            let oauthAsWOPI = try await http.get("/wopi/files/\(fixture.fileA.id)?access_token=\(access)")
            #expect(oauthAsWOPI.status == .unauthorized)
        }
    }

    @Test func appToAppFlowEndsInAnAnswerOfficeCanRedeem() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            // Office opens the provider's app.
            let officeRequest = try SignInRequest(string: "contoso:client_id=\(SignInFixture.officeClientID)&response_type=code&scope=wopi"
                                                  + "&rs=deDE&build=16.1.1234&platform=iOS&app=excel&action=76d173ad-a43f-4e3c-a5e7-0e7276b4c624")
            // The app's own session: public client, PKCE S256, redirect on its URL scheme, no consent step.
            let verifier = Base64URL.randomToken(byteCount: 40)
            let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
            let redirect = FirstPartyApp.redirectURI(scheme: officeRequest.scheme)
            #expect(redirect == "contoso:/oauth2/callback")
            let authorize = "/oauth2/authorize?" + HTTPSession.encode([
                ("client_id", FirstPartyApp.clientID), ("redirect_uri", redirect), ("response_type", "code"),
                ("code_challenge", challenge), ("code_challenge_method", "S256"), ("state", "app-state"),
            ])
            let signedIn = try await http.signIn(authorize, username: "alice", password: SignInFixture.alicePassword)
            #expect(signedIn.status == .found)
            #expect(signedIn.location?.hasPrefix("contoso:/oauth2/callback?code=") == true)
            #expect(signedIn.redirectParameters["state"] == "app-state")
            #expect(signedIn.redirectParameters["sc"] == nil)
            let appCode = try #require(signedIn.redirectParameters["code"])

            // A wrong verifier is refused; then the right one gets the app's session.
            let wrongVerifier = try await http.post("/oauth2/token", form: [("grant_type", "authorization_code"), ("code", appCode),
                                                                            ("redirect_uri", redirect), ("client_id", FirstPartyApp.clientID),
                                                                            ("code_verifier", Base64URL.randomToken(byteCount: 40))])
            #expect(wrongVerifier.status == .badRequest)
            #expect(wrongVerifier.json["error"] as? String == "invalid_grant")
            let session = try await http.post("/oauth2/token", form: [("grant_type", "authorization_code"), ("code", appCode),
                                                                      ("redirect_uri", redirect), ("client_id", FirstPartyApp.clientID),
                                                                      ("code_verifier", verifier)])
            #expect(session.status == .ok, "\(session.body)")
            let appToken = try #require(session.json["access_token"] as? String)

            // The app asks for a code for Office.
            let grant = try await http.post("/oauth2/app-to-app", form: [("client_id", officeRequest.clientID), ("action", officeRequest.action ?? "")],
                                            headers: HTTPSession.bearer(appToken))
            #expect(grant.status == .ok, "\(grant.body)")
            #expect(grant.json["action"] as? String == "76d173ad-a43f-4e3c-a5e7-0e7276b4c624")
            #expect(grant.json["redirect_uri"] as? String == SignInFixture.officeRedirect)
            let code = try #require(grant.json["code"] as? String)
            let sc = try #require(grant.json["sc"] as? String)

            // The library builds the answer; Office parses it back.
            let answer = try officeRequest.response(code: code, sessionContext: sc)
            #expect(answer.string.hasPrefix("ms-excel-tp:code="))
            let parsed = try SignInResponse(string: answer.string)
            #expect(parsed.code == code && parsed.sessionContext == sc && parsed.action == officeRequest.action)

            // Office redeems it (no redirect_uri: its app-to-app request had none) and bootstraps.
            let tokens = try await http.redeem(try #require(parsed.code), sc: parsed.sessionContext, redirect: nil)
            #expect(tokens.status == .ok, "\(tokens.body)")
            let access = try #require(tokens.json["access_token"] as? String)
            let bootstrap = try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access, sc: sc))
            #expect(bootstrap.status == .ok)
            #expect((bootstrap.json["Bootstrap"] as? [String: Any])?["UserId"] as? String == fixture.alice.id.rawValue)

            // Office's own token cannot mint app-to-app codes; nor can no token.
            let officeAsApp = try await http.post("/oauth2/app-to-app", form: [("client_id", SignInFixture.officeClientID)],
                                                  headers: SignInFixture.bearerHeaders(access, sc: sc))
            #expect(officeAsApp.status == .forbidden)
            let anonymous = try await http.post("/oauth2/app-to-app", form: [("client_id", SignInFixture.officeClientID)])
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.json["error"] as? String == "invalid_token")
            // An unknown client id is named as such.
            let unknown = try await http.post("/oauth2/app-to-app", form: [("client_id", "nobody")], headers: HTTPSession.bearer(appToken))
            #expect(unknown.status == .badRequest)
            #expect(unknown.json["error"] as? String == "invalid_request")
        }
    }

    @Test func deniedConsentRedirectsWithAccessDenied() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let done = try await http.signIn(HTTPSession.officeAuthorizeURI(state: "keep-me"), username: "alice",
                                             password: SignInFixture.alicePassword, decision: "deny")
            #expect(done.status == .found)
            #expect(done.redirectParameters["error"] == "access_denied")
            #expect(done.redirectParameters["state"] == "keep-me")
            #expect(done.redirectParameters["code"] == nil)
        }
    }
}

extension SignInFixture {
    /// Authorization (and session context) headers for the bootstrapper.
    static func bearerHeaders(_ token: String, colon: Bool = false, sc: String? = nil) -> HTTPFields {
        HTTPSession.bearer(token, colon: colon, sessionContext: sc)
    }
}
