import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OfficeURLScheme
import Testing

/// The provider app's sign-in to its host (PKCE) and file listing, driven with the JSON the
/// host sends (same field names as WOPIHost's encoders) and a fake SHA-256.
@Suite struct HostClientTests {
    static let server = URL(string: "http://127.0.0.1:8080")!
    static let verifier = "dBjftJeZ4CVP-mJ92K9-JFk6G4IH4BShW-fEyJm_zNY"
    /// SHA-256 of `verifier`, computed outside the test.
    static let digest = Data([222, 170, 216, 143, 177, 46, 108, 253, 229, 176, 2, 140, 77, 177, 103, 236,
                              183, 239, 176, 146, 144, 208, 31, 212, 147, 133, 49, 229, 101, 48, 167, 108])

    static func fakeSHA256(_ data: Data) -> Data {
        // Only ever asked to hash the verifier; anything else is a bug in HostSignIn.
        data == Data(verifier.utf8) ? digest : Data()
    }

    static func signIn(state: String = "st8") throws -> HostSignIn {
        try HostSignIn(server: server, callbackScheme: "clouddrive", codeVerifier: verifier, state: state, sha256: fakeSHA256)
    }

    static func form(_ request: URLRequest) -> [String: String] {
        let text = String(decoding: request.httpBody ?? Data(), as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    @Test func authorizationURLCarriesTheS256Challenge() throws {
        let signIn = try Self.signIn()
        #expect(signIn.codeChallenge == "3qrYj7EubP3lsAKMTbFn7LfvsJKQ0B_Uk4Ux5WUwp2w")
        #expect(signIn.redirectURI == "clouddrive:/oauth2/callback")
        let url = signIn.authorizationURL(culture: "de-DE")
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.path == "/oauth2/authorize")
        let items = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items == [
            "client_id": "wopikit-app", "redirect_uri": "clouddrive:/oauth2/callback", "response_type": "code", "scope": "wopi",
            "state": "st8", "code_challenge": "3qrYj7EubP3lsAKMTbFn7LfvsJKQ0B_Uk4Ux5WUwp2w", "code_challenge_method": "S256", "rs": "de-DE",
        ])
        // The verifier itself never leaves the app before the token request.
        #expect(!url.absoluteString.contains(Self.verifier))
        // Nor does it show when the sign-in is printed or logged.
        for text in ["\(signIn)", String(reflecting: signIn)] {
            #expect(text.contains("clouddrive:/oauth2/callback") && !text.contains(Self.verifier) && !text.contains("st8"))
        }
    }

    @Test func randomVerifierAndStateDifferEachTime() throws {
        let first = try HostSignIn(server: Self.server, callbackScheme: "clouddrive", sha256: { _ in Data([1]) })
        let second = try HostSignIn(server: Self.server, callbackScheme: "clouddrive", sha256: { _ in Data([1]) })
        #expect(first.codeVerifier.count == 43 && first.state.count >= 22)
        #expect(first.codeVerifier != second.codeVerifier && first.state != second.state)
    }

    @Test func rejectsBadInputByName() {
        #expect(throws: HostSignInError.self) { try HostSignIn(server: Self.server, callbackScheme: "cloud drive", sha256: Self.fakeSHA256) }
        #expect(throws: HostSignInError.self) {
            try HostSignIn(server: URL(string: "ftp://h")!, callbackScheme: "clouddrive", sha256: Self.fakeSHA256)
        }
        #expect(throws: HostSignInError.self) {
            try HostSignIn(server: Self.server, callbackScheme: "clouddrive", codeVerifier: "short", sha256: Self.fakeSHA256)
        }
    }

    @Test func callbackGivesTheCodeOnlyForOurState() throws {
        let signIn = try Self.signIn()
        #expect(try signIn.authorizationCode(fromCallback: URL(string: "clouddrive:/oauth2/callback?code=abc&state=st8")!) == "abc")
        #expect {
            try signIn.authorizationCode(fromCallback: URL(string: "clouddrive:/oauth2/callback?code=abc&state=other")!)
        } throws: { ($0 as? HostSignInError)?.description == HostSignInError.stateMismatch.description }
        #expect {
            try signIn.authorizationCode(fromCallback: URL(string: "clouddrive:/oauth2/callback?error=access_denied&state=st8")!)
        } throws: { "\($0)".contains("access_denied") }
    }

    @Test func tokenAndAppToAppRequestsAndTheAnswerForOffice() throws {
        let signIn = try Self.signIn()
        let token = signIn.tokenRequest(code: "app code/1")
        #expect(token.httpMethod == "POST" && token.url?.absoluteString == "http://127.0.0.1:8080/oauth2/token")
        #expect(token.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(Self.form(token) == [
            "grant_type": "authorization_code", "code": "app code/1", "redirect_uri": "clouddrive:/oauth2/callback",
            "client_id": "wopikit-app", "code_verifier": Self.verifier,
        ])
        let accessToken = try signIn.accessToken(fromTokenResponse: Data(#"{"access_token":"AT","token_type":"Bearer"}"#.utf8))
        #expect(accessToken == "AT")
        #expect(throws: HostSignInError.self) { try signIn.accessToken(fromTokenResponse: Data(#"{"error":"invalid_grant"}"#.utf8)) }

        let office = try SignInRequest(string: "clouddrive:client_id=office&response_type=code&scope=wopi&app=excel&action=a%7C1")
        let appToApp = signIn.appToAppRequest(for: office, accessToken: accessToken)
        #expect(appToApp.url?.path == "/oauth2/app-to-app" && appToApp.value(forHTTPHeaderField: "Authorization") == "Bearer AT")
        #expect(Self.form(appToApp) == ["client_id": "office", "action": "a|1", "scope": "wopi"])
        let answer = try signIn.answer(to: office, appToAppResponse: Data(#"{"code":"C1","sc":"S1","expires_in":60,"action":"a|1"}"#.utf8))
        #expect(answer.string == "ms-excel-tp:code=C1&sc=S1&action=a%7C1")
        #expect(throws: HostSignInError.self) { try signIn.answer(to: office, appToAppResponse: Data("{}".utf8)) }
    }

    @Test func identityTokenExchangeRequestAndTheAnswerForOffice() throws {
        let exchange = try IdentityTokenExchange(server: URL(string: "http://127.0.0.1:8080")!)
        let office = try SignInRequest(string: "clouddrive:client_id=office&response_type=code&scope=wopi&app=word&action=a%7C1")
        let request = exchange.request(for: office, subjectToken: "eyJ.id+token/x", subjectTokenType: .accessToken)
        #expect(request.httpMethod == "POST" && request.url?.absoluteString == "http://127.0.0.1:8080/oauth2/token")
        #expect(Self.form(request) == [
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "client_id": "wopikit-app", "subject_token": "eyJ.id+token/x",
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "requested_token_type": "urn:wopikit:params:oauth:token-type:authorization_code", "audience": "office", "action": "a|1", "scope": "wopi",
        ])
        let answer = try exchange.answer(to: office, exchangeResponse: Data("""
            {"access_token":"C1","code":"C1","issued_token_type":"urn:wopikit:params:oauth:token-type:authorization_code","token_type":"N_A","sc":"S1"}
            """.utf8))
        #expect(answer.string == "ms-word-tp:code=C1&sc=S1&action=a%7C1")
        #expect {
            try exchange.answer(to: office, exchangeResponse: Data(#"{"error":"invalid_grant","error_description":"wrong_audience"}"#.utf8))
        } throws: { error in
            guard case .refused(let code, let description)? = error as? HostSignInError else { return false }
            return code == "invalid_grant" && description == "wrong_audience"
        }
        // An access token for some API is not what Office can redeem.
        #expect {
            try exchange.answer(to: office, exchangeResponse: Data(#"{"access_token":"AT","token_type":"Bearer"}"#.utf8))
        } throws: { "\($0)".contains("issued_token_type") }
        #expect { try IdentityTokenExchange(server: URL(string: "ftp://host")!) } throws: { "\($0)".contains("ftp://host") }
    }

    @Test func listsFilesAndBuildsTheWOPIInvokeForm() throws {
        let list = HostFileList(bootstrapper: URL(string: "http://127.0.0.1:8080/wopibootstrapper")!)
        let rootRequest = list.rootContainerRequest(accessToken: "AT")
        #expect(rootRequest.httpMethod == "POST" && rootRequest.value(forHTTPHeaderField: "X-WOPI-EcosystemOperation") == "GET_ROOT_CONTAINER")
        #expect(rootRequest.value(forHTTPHeaderField: "Authorization") == "Bearer AT")
        let root = try list.rootContainer(from: Data("""
            {"Bootstrap":{"EcosystemUrl":"http://127.0.0.1:8080/wopi/ecosystem?access_token=E","SignInName":"demo","UserFriendlyName":"Demo","UserId":"u1"},
             "RootContainerInfo":{"ContainerInfo":{"Name":"Home"},"ContainerPointer":{"Name":"Home","Url":"http://127.0.0.1:8080/wopi/containers/c1?access_token=T"}}}
            """.utf8))
        #expect(root.userID == "u1" && root.name == "Home")
        #expect(list.childrenRequest(of: root).url?.absoluteString == "http://127.0.0.1:8080/wopi/containers/c1/children?access_token=T")
        let files = try list.files(from: Data("""
            {"ChildContainers":[],"ChildFiles":[
              {"Name":"Report.docx","Url":"http://127.0.0.1:8080/wopi/files/f1?access_token=T1","Size":10,"Version":"3","LastModifiedTime":"2026-01-01T00:00:00.0000000Z"},
              {"Name":"notes.txt","Url":"http://127.0.0.1:8080/wopi/files/f2?access_token=T2","Size":1,"Version":"1","LastModifiedTime":"2026-01-01T00:00:00.0000000Z"}]}
            """.utf8))
        #expect(files.map(\.name) == ["Report.docx", "notes.txt"] && files[0].version == "3")
        #expect(files[0].wopiSrc == "http://127.0.0.1:8080/wopi/files/f1" && files[0].app == .word && files[1].app == nil)
        let invoke = try files[0].invokeURI(service: "contoso", user: root.userID, passbackScheme: "clouddrive", context: "home")
        #expect(invoke.string == "ms-word:ofe|u|http://127.0.0.1:8080/wopi/files/f1|d|contoso|e|u1|n|Report.docx|a|App|p|clouddrive|c|home")
        #expect(throws: OfficeURLError.self) { try files[1].invokeURI(service: "contoso", user: "u1", passbackScheme: "clouddrive") }
        #expect(throws: HostSignInError.self) { try list.files(from: Data(#"{"ChildContainers":[]}"#.utf8)) }
    }

    @Test func launchResultNamesTheProductToPresent() {
        let word = AppStoreProduct(id: 586_447_913, device: .universal)
        #expect(OfficeLaunchResult.notInstalled(.word, word).storeProduct == word)
        #expect(OfficeLaunchResult.needsUpdate(.word, word).storeProduct?.id == 586_447_913)
        #expect(OfficeLaunchResult.opened.storeProduct == nil && OfficeLaunchResult.failedToOpen(.word).storeProduct == nil)
    }
}
