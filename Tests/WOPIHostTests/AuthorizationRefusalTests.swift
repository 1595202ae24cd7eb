import Foundation
import HTTPTypes
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// Each way sign-in must say no, over HTTP.
@Suite struct AuthorizationRefusalTests {
    @Test func wrongPasswordRerendersTheSignInPageWithAnError() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let page = try await http.get(HTTPSession.officeAuthorizeURI())
            let cookie = page.cookie
            for (username, password) in [("alice", "wrong-password"), ("nobody", "whatever-pass"), ("alice", "")] {
                let reply = try await http.submit(page, cookie: cookie, [("username", username), ("password", password)])
                #expect(reply.status == .unauthorized)
                #expect(reply.location == nil)
                #expect(reply.body.contains("class=\"error\""))
                #expect(reply.body.contains("name=\"password\""))
                #expect(!reply.body.contains("name=\"decision\""))
            }
            // Without the CSRF cookie the form is refused even with the right password.
            let forged = try await http.submit(page, cookie: nil, [("username", "alice"), ("password", SignInFixture.alicePassword)])
            #expect(forged.status == .badRequest)
            #expect(forged.location == nil)
            #expect(!forged.body.contains("<form"))
        }
    }

    @Test("wrong passwords on the web front count on the OAuth sign-in page: one throttle per host")
    func theWebFrontAndTheOAuthPageShareOneThrottle() async throws {
        let fixture = try await SignInFixture.make(policy: AuthorizationPolicy(maximumFailedSignIns: 3, failureWindow: 600))
        try await fixture.serve { http in
            let home = try await http.get("/")
            let cookie = try #require(home.headers[values: .setCookie].first { $0.hasPrefix("wopi_web_csrf=") }?.split(separator: ";").first.map(String.init))
            let marker = try #require(home.body.range(of: "name=\"csrf\" value=\""), "the web sign-in form has a CSRF field")
            let csrf = String(home.body[marker.upperBound...].prefix { $0 != "\"" })
            var headers = HTTPFields()
            headers[.cookie] = cookie
            for _ in 0..<3 {
                let reply = try await http.post("/signin", form: [("csrf", csrf), ("username", "alice"), ("password", "wrong-password")], headers: headers)
                #expect(reply.status == .unauthorized)
            }
            let page = try await http.get(HTTPSession.officeAuthorizeURI())
            let limited = try await http.submit(page, cookie: page.cookie, [("username", "alice"), ("password", SignInFixture.alicePassword)])
            #expect(limited.status == .tooManyRequests, "the OAuth page must see the web front's failures")
        }
    }

    @Test func repeatedWrongPasswordsAreThrottled() async throws {
        let fixture = try await SignInFixture.make(policy: AuthorizationPolicy(maximumFailedSignIns: 3, failureWindow: 600))
        try await fixture.serve { http in
            let page = try await http.get(HTTPSession.officeAuthorizeURI())
            let cookie = page.cookie
            for _ in 0..<3 {
                let reply = try await http.submit(page, cookie: cookie, [("username", "alice"), ("password", "wrong-password")])
                #expect(reply.status == .unauthorized)
            }
            // Even the right password waits now.
            let limited = try await http.submit(page, cookie: cookie, [("username", "ALICE"), ("password", SignInFixture.alicePassword)])
            #expect(limited.status == .tooManyRequests)
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 600)
            #expect(limited.body.contains("class=\"error\""))
            // Another user is not affected; after the window, alice may try again.
            let other = try await http.submit(page, cookie: cookie, [("username", "bob"), ("password", SignInFixture.bobPassword)])
            #expect(other.status == .ok)
            fixture.clock.advance(by: 601)
            let later = try await http.submit(page, cookie: cookie, [("username", "alice"), ("password", SignInFixture.alicePassword)])
            #expect(later.status == .ok)
            #expect(later.body.contains("name=\"decision\""))
        }
    }

    @Test func wrongClientSecretIsInvalidClient() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (code, sc) = try await http.officeCode()
            let basic = try await http.redeem(code, sc: sc, secret: "not-the-secret")
            #expect(basic.status == .unauthorized)
            #expect(basic.json["error"] as? String == "invalid_client")
            #expect(basic.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            let form = try await http.post("/oauth2/token", form: [("grant_type", "authorization_code"), ("code", code),
                                                                   ("redirect_uri", SignInFixture.officeRedirect),
                                                                   ("client_id", SignInFixture.officeClientID), ("client_secret", "nope")])
            #expect(form.status == .unauthorized)
            #expect(form.json["error"] as? String == "invalid_client")
            // The code survived the failed attempts: the right secret still redeems it.
            let good = try await http.redeem(code, sc: sc)
            #expect(good.status == .ok)
        }
    }

    @Test func mismatchedRedirectURIIsAnErrorPageNeverARedirect() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            for redirect in ["https://attacker.example", "https://localhost.attacker.example", "https://localhost/other"] {
                let reply = try await http.get(HTTPSession.officeAuthorizeURI(redirect: redirect))
                #expect(reply.status == .badRequest)
                #expect(reply.location == nil)
                #expect(!reply.body.contains("<form"))
                #expect(reply.body.contains("class=\"error\""))
            }
            // An unknown client gets the same treatment.
            let unknown = try await http.get("/oauth2/authorize?client_id=nobody&redirect_uri=https%3A%2F%2Flocalhost&response_type=code")
            #expect(unknown.status == .badRequest)
            #expect(unknown.location == nil)
            // Once client and redirect are trusted, other problems are redirected with the RFC 6749 error.
            let badType = try await http.get("/oauth2/authorize?client_id=\(SignInFixture.officeClientID)&redirect_uri=https%3A%2F%2Flocalhost&response_type=token&state=q")
            #expect(badType.status == .found)
            #expect(badType.redirectParameters["error"] == "unsupported_response_type")
            #expect(badType.redirectParameters["state"] == "q")
            // At the token endpoint a different redirect_uri than the code's is refused.
            let (code, sc) = try await http.officeCode()
            let reply = try await http.redeem(code, sc: sc, redirect: "https://attacker.example")
            #expect(reply.status == .badRequest)
            #expect(reply.json["error"] as? String == "invalid_grant")
            let omitted = try await http.redeem(code, sc: sc, redirect: nil)
            #expect(omitted.json["error"] as? String == "invalid_grant")
        }
    }

    @Test func reusedCodeIsRefusedAndRevokesWhatItIssued() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (code, sc) = try await http.officeCode()
            let first = try await http.redeem(code, sc: sc)
            #expect(first.status == .ok)
            let access = try #require(first.json["access_token"] as? String)
            let refresh = try #require(first.json["refresh_token"] as? String)
            #expect(try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access, sc: sc)).status == .ok)

            let second = try await http.redeem(code, sc: sc)
            #expect(second.status == .badRequest)
            #expect(second.json["error"] as? String == "invalid_grant")
            // The tokens of the first redemption are revoked.
            #expect(try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access, sc: sc)).status == .unauthorized)
            var headers = HTTPSession.basic(SignInFixture.officeClientID, SignInFixture.officeSecret)
            headers[HTTPField.Name("X-WOPI-SessionContext")!] = sc
            let refreshed = try await http.post("/oauth2/token", form: [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: headers)
            #expect(refreshed.json["error"] as? String == "invalid_grant")
        }
    }

    @Test func reusedRefreshTokenRevokesTheGrant() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (_, refresh, sc) = try await http.officeTokens()
            var headers = HTTPSession.basic(SignInFixture.officeClientID, SignInFixture.officeSecret)
            headers[HTTPField.Name("X-WOPI-SessionContext")!] = sc
            let rotated = try await http.post("/oauth2/token", form: [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: headers)
            #expect(rotated.status == .ok)
            let newAccess = try #require(rotated.json["access_token"] as? String)
            let replay = try await http.post("/oauth2/token", form: [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: headers)
            #expect(replay.status == .badRequest)
            #expect(replay.json["error"] as? String == "invalid_grant")
            #expect(try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(newAccess, sc: sc)).status == .unauthorized)
        }
    }

    @Test func expiredCodeIsRefused() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (code, sc) = try await http.officeCode()
            fixture.clock.advance(by: 301)
            let reply = try await http.redeem(code, sc: sc)
            #expect(reply.status == .badRequest)
            #expect(reply.json["error"] as? String == "invalid_grant")
            #expect((reply.json["error_description"] as? String)?.contains("expired") == true)
        }
    }

    @Test func missingSessionContextAtTheTokenEndpointIsRefused() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (code, _) = try await http.officeCode()
            let reply = try await http.redeem(code, sc: nil)
            #expect(reply.json["error"] as? String == "invalid_grant")
        }
    }

    @Test func expiredOAuthTokenIsChallenged() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (access, _, sc) = try await http.officeTokens()
            fixture.clock.advance(by: 3601)
            let reply = try await http.get("/wopibootstrapper", headers: SignInFixture.bearerHeaders(access, sc: sc))
            #expect(reply.status == .unauthorized)
            #expect(reply.headers[values: .wwwAuthenticate].count == 1)
        }
    }

    @Test func wopiTokenForFileAIsRefusedOnFileB() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (access, _, sc) = try await http.officeTokens()
            let minted = try await http.ecosystemOperation("GET_NEW_ACCESS_TOKEN", token: access, sc: sc,
                                                           wopiSrc: fixture.backend.wopiSrc(.file(fixture.fileA.id)))
            let token = try #require((minted.json["AccessTokenInfo"] as? [String: Any])?["AccessToken"] as? String)
            #expect(try await http.get("/wopi/files/\(fixture.fileA.id)?access_token=\(token)").status == .ok)
            let onB = try await http.get("/wopi/files/\(fixture.fileB.id)?access_token=\(token)")
            #expect(onB.status == .unauthorized)
            let contentsOfB = try await http.get("/wopi/files/\(fixture.fileB.id)/contents?access_token=\(token)")
            #expect(contentsOfB.status == .unauthorized)
        }
    }

    @Test func newAccessTokenIsRefusedForOtherUsersFilesAndForeignSources() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let (access, _, sc) = try await http.officeTokens()
            let base = fixture.backend.wopiSrc(.file(fixture.fileA.id))
            let sources: [String?] = [
                fixture.backend.wopiSrc(.file(fixture.bobsFile.id)),                  // bob's file
                fixture.backend.wopiSrc(.container(fixture.bob.rootContainerID)),     // bob's folder
                fixture.backend.wopiSrc(.file(ResourceID.random())),                  // unknown
                base.replacingOccurrences(of: "wopi.example.test", with: "other.example.test"), // another host
                base.replacingOccurrences(of: "https://", with: "http://"),           // another scheme
                "https://wopi.example.test/elsewhere/files/\(fixture.fileA.id)",     // not a WOPI path
                "not a url",
                nil,                                                                   // missing
            ]
            for source in sources {
                let reply = try await http.ecosystemOperation("GET_NEW_ACCESS_TOKEN", token: access, sc: sc, wopiSrc: source)
                #expect(reply.status == .notFound, "\(source ?? "(missing)")")
                #expect(!reply.body.contains("AccessToken"))
            }
            // The same call for alice's own file, with a query on the WopiSrc, works.
            let own = try await http.ecosystemOperation("GET_NEW_ACCESS_TOKEN", token: access, sc: sc, wopiSrc: base + "?access_token=old")
            #expect(own.status == .ok)
            // An unknown operation is 501.
            let unknown = try await http.ecosystemOperation("GET_EVERYTHING", token: access, sc: sc)
            #expect(unknown.status == .notImplemented)
        }
    }

    @Test func appClientMustUsePKCE() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let reply = try await http.get("/oauth2/authorize?client_id=\(FirstPartyApp.clientID)&redirect_uri=contoso%3A%2Foauth2%2Fcallback&response_type=code&state=z")
            #expect(reply.status == .found)
            #expect(reply.redirectParameters["error"] == "invalid_request")
            #expect(reply.location?.hasPrefix("contoso:/oauth2/callback?") == true)
            let plain = try await http.get("/oauth2/authorize?client_id=\(FirstPartyApp.clientID)&redirect_uri=contoso%3A%2Foauth2%2Fcallback&response_type=code&code_challenge=abc&code_challenge_method=plain")
            #expect(plain.redirectParameters["error"] == "invalid_request")
        }
    }
}

/// The storage rules behind the flows, without HTTP.
@Suite struct AuthorizationStoreTests {
    @Test func codesAndTokensAreStoredOnlyAsDigests() async throws {
        let fixture = try await SignInFixture.make()
        defer { try? FileManager.default.removeItem(at: fixture.dataURL) }
        let store = fixture.folder.store
        let code = "the-code-value-1234567890"
        let now = Date()
        try await store.storeAuthorizationCode(AuthorizationCodeRecord(
            digest: SecretDigest(of: code), clientID: "c", redirectURI: "https://localhost", redirectURIRequired: true, userID: fixture.alice.id,
            scope: "wopi", codeChallenge: nil, sessionContextDigest: nil, grantID: "g1", createdAt: now, expiresAt: now.addingTimeInterval(300)))
        let token = OAuthTokenRecord(digest: SecretDigest(of: "the-token-value-0987654321"), kind: .access, grantID: "g1", clientID: "c",
                                     userID: fixture.alice.id, scope: "wopi", sessionContextDigest: nil, createdAt: now,
                                     expiresAt: now.addingTimeInterval(60))
        #expect(try await store.redeemAuthorizationCode(digest: SecretDigest(of: code), issuing: [token], now: now))
        // Single use, even at the storage level.
        #expect(try await store.redeemAuthorizationCode(digest: SecretDigest(of: code), issuing: [], now: now) == false)
        #expect(try await store.oauthToken(digest: SecretDigest(of: "the-token-value-0987654321"))?.grantID == "g1")
        try await store.revokeGrant("g1", now: now)
        #expect(try await store.oauthToken(digest: SecretDigest(of: "the-token-value-0987654321"))?.revokedAt != nil)

        // Neither secret is anywhere in the database files.
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.dataURL.path) where name.hasPrefix("wopi.sqlite") {
            bytes.append(try Data(contentsOf: fixture.dataURL.appendingPathComponent(name)))
        }
        #expect(bytes.range(of: Data(code.utf8)) == nil)
        #expect(bytes.range(of: Data("the-token-value-0987654321".utf8)) == nil)
        #expect(bytes.range(of: Data(SecretDigest(of: code).hex.utf8)) != nil)

        // Removing the user removes their codes and tokens.
        _ = try await store.removeUser(id: fixture.alice.id)
        #expect(try await store.authorizationCode(digest: SecretDigest(of: code)) == nil)
        #expect(try await store.oauthToken(digest: SecretDigest(of: "the-token-value-0987654321")) == nil)
    }

    @Test func registrationRefusesValuesOfficeCannotUse() throws {
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: "", clientSecret: "s") }
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: "a:b", clientSecret: "s") }
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: "id", clientSecret: "") }
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: "id", clientSecret: "s", redirectURI: "localhost") }
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: "id", clientSecret: "s", providerID: "tp-contoso") }
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: "id", clientSecret: "s", iOSURLSchemes: ["1abc"]) }
        #expect(throws: OfficeRegistrationError.self) { try OfficeRegistration(clientID: FirstPartyApp.clientID, clientSecret: "s") }
        let registration = try OfficeRegistration(clientID: "id", clientSecret: "s3cret", iOSURLSchemes: ["contoso"])
        #expect(registration.clientSecretDigest.matches("s3cret"))
        #expect(!registration.clientSecretDigest.matches("s3cret "))
        #expect(registration.redirectURI == "https://localhost")
    }
}
