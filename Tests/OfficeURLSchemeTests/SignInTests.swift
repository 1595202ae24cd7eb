import Foundation
import OfficeURLScheme
import Testing

@Suite struct SignInTests {
    static let seedRequest = "Contoso:client_id=abcdefg&response_type=code&scope=wopi&rs=enUS&build=16.1.1234&platform=iOS&app=word&action=76d173ad-a43f-4e3c-a5e7-0e7276b4c624"

    @Test func parsesOfficesRequest() throws {
        let request = try SignInRequest(string: Self.seedRequest)
        #expect(request.scheme == "Contoso" && request.clientID == "abcdefg" && request.responseType == "code")
        #expect(request.scope == "wopi" && request.culture == "enUS" && request.build == "16.1.1234")
        #expect(request.platform == "iOS" && request.officeApp == "word")
        #expect(request.action == "76d173ad-a43f-4e3c-a5e7-0e7276b4c624")
        #expect(request.returnScheme == "ms-word-tp")
        #expect(request.string == Self.seedRequest)
        #expect(try SignInRequest(url: request.url) == request)
    }

    @Test func buildsTheRequestTheSimulatorSends() throws {
        let built = try SignInRequest(scheme: "Contoso", clientID: "abcdefg", scope: "wopi", culture: "enUS", build: "16.1.1234",
                                      officeApp: "word", action: "76d173ad-a43f-4e3c-a5e7-0e7276b4c624")
        #expect(built.string == Self.seedRequest)
    }

    @Test func namesMatchCaseInsensitively() throws {
        let request = try SignInRequest(string: "contoso://CLIENT_ID=a&Response_Type=code&Build=1&Platform=iOS&app=Excel&action=x")
        #expect(request.clientID == "a" && request.build == "1" && request.returnScheme == "ms-excel-tp")
    }

    @Test func answersOnTheRightScheme() throws {
        let cases = [("word", "ms-word-tp"), ("excel", "ms-excel-tp"), ("powerpoint", "ms-powerpoint-tp"), ("officemobile", "ms-officemobile-tp")]
        for (app, scheme) in cases {
            let request = try SignInRequest(scheme: "contoso", clientID: "c", officeApp: app, action: "act")
            let response = try request.response(code: "abcdefg", tokenEndpoint: "https://contoso.com/api/token/?extra=stuff", sessionContext: "xyz")
            #expect(response.string == "\(scheme):code=abcdefg&tk=https%3A%2F%2Fcontoso.com%2Fapi%2Ftoken%2F%3Fextra%3Dstuff&sc=xyz&action=act")
        }
        let unknown = try SignInRequest(scheme: "contoso", clientID: "c", officeApp: "visio")
        #expect(throws: OfficeURLError.unknownSignInApp("visio")) { try unknown.response(code: "x") }
    }

    @Test func parsesEncodedAndUnencodedTokenEndpoint() throws {
        let old = try SignInResponse(string: "ms-word-tp:code=abcdefg&tk=http://contoso.com&sc=xyz&action=76d173ad")
        #expect(old.code == "abcdefg" && old.tokenEndpoint == "http://contoso.com" && old.sessionContext == "xyz" && old.action == "76d173ad")
        let new = try SignInResponse(string: "ms-word-tp:code=abcdefg&tk=https%3A%2F%2Fcontoso.com%2Fapi%2Ftoken%2F%3Fextra%3Dstuff&sc=xyz&action=a")
        #expect(new.tokenEndpoint == "https://contoso.com/api/token/?extra=stuff")
    }

    @Test func errorForm() throws {
        let request = try SignInRequest(string: Self.seedRequest)
        let response = try request.errorResponse(OAuthAuthorizationError(code: OAuthAuthorizationError.accessDenied, description: "User said no", uri: "https://contoso.com/help"))
        #expect(response.string == "ms-word-tp:error=access_denied&error_description=User%20said%20no&error_uri=https%3A%2F%2Fcontoso.com%2Fhelp&action=76d173ad-a43f-4e3c-a5e7-0e7276b4c624")
        let parsed = try SignInResponse(string: response.string)
        #expect(parsed.error?.code == "access_denied" && parsed.error?.description == "User said no" && parsed.code == nil)
        #expect(throws: OfficeURLError.conflictingSignInResult) { try SignInResponse(string: "ms-word-tp:code=a&error=b") }
        #expect(throws: OfficeURLError.missingParameter("code (or error)")) { try SignInResponse(string: "ms-word-tp:action=a") }
        #expect(throws: OfficeURLError.missingParameter("client_id")) { try SignInRequest(string: "contoso:response_type=code") }
        #expect(throws: OfficeURLError.duplicateArgument("code")) { try SignInResponse(string: "ms-word-tp:code=a&code=b") }
    }

    @Test func messageRecognisesEachKind() throws {
        guard case .invoke = try OfficeURLMessage(string: InvokeURITests.seedEdit) else { Issue.record("invoke"); return }
        guard case .passback = try OfficeURLMessage(string: PassbackTests.seed) else { Issue.record("passback"); return }
        guard case .signInRequest = try OfficeURLMessage(string: Self.seedRequest) else { Issue.record("request"); return }
        guard case .signInResponse = try OfficeURLMessage(string: "ms-excel-tp:code=a&action=b") else { Issue.record("response"); return }
        guard case .signInResponse = try OfficeURLMessage(string: "contoso:error=access_denied") else { Issue.record("response"); return }
        #expect(throws: OfficeURLError.unrecognizedURL("contoso:hello")) { try OfficeURLMessage(string: "contoso:hello") }
    }
}
