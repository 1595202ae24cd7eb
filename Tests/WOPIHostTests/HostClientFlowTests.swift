import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OfficeURLScheme
import Testing
import WOPICore
@testable import WOPIHost

/// OfficeURLScheme's `HostSignIn` and `HostFileList` (what the example app and the DocC article
/// use) against the real host over HTTP: the exact requests they build are sent as they are.
@Suite struct HostClientFlowTests {
    @Test func appSignsInWithPKCEListsFilesAndAnswersOffice() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let server = URL(string: SignInFixture.publicURL)!
            let signIn = try HostSignIn(server: server, callbackScheme: "contoso", sha256: { Data(SHA256.hash(data: $0)) })

            // The sign-in page (shown by ASWebAuthenticationSession in the app) redirects to the app's scheme.
            let done = try await http.signIn(Self.uri(signIn.authorizationURL(culture: "en-US")), username: "alice", password: SignInFixture.alicePassword)
            #expect(done.status == .found)
            let callback = try #require(done.location.flatMap(URL.init(string:)))
            #expect(callback.scheme == "contoso")
            let code = try signIn.authorizationCode(fromCallback: callback)

            // The host checks the PKCE verifier against the challenge and issues the app's session.
            let token = try await http.send(signIn.tokenRequest(code: code))
            #expect(token.status == .ok, "\(token.body)")
            let accessToken = try signIn.accessToken(fromTokenResponse: Data(token.body.utf8))

            // The file list, through the bootstrapper as Office reads it.
            let list = HostFileList(bootstrapper: server.appendingPathComponent("wopibootstrapper"))
            let rootReply = try await http.send(list.rootContainerRequest(accessToken: accessToken))
            #expect(rootReply.status == .ok, "\(rootReply.body)")
            let root = try list.rootContainer(from: Data(rootReply.body.utf8))
            #expect(root.userID == fixture.alice.id.rawValue)
            let childrenReply = try await http.send(list.childrenRequest(of: root))
            #expect(childrenReply.status == .ok, "\(childrenReply.body)")
            let files = try list.files(from: Data(childrenReply.body.utf8))
            #expect(Set(files.map(\.name)) == ["A.docx", "B.xlsx"])
            let report = try #require(files.first { $0.name == "A.docx" })
            #expect(report.wopiSrc == "\(SignInFixture.publicURL)/wopi/files/\(fixture.fileA.id.rawValue)")
            let invoke = try report.invokeURI(service: "tp_wopikit", user: root.userID, passbackScheme: "contoso", context: "home")
            #expect(invoke.string == "ms-word:ofe|u|\(report.wopiSrc)|d|tp_wopikit|e|\(root.userID)|n|A.docx|a|App|p|contoso|c|home")
            // The listed URL carries a working WOPI token; the invoke URI carries none.
            let checkFileInfo = try await http.send(URLRequest(url: report.url))
            #expect(checkFileInfo.status == .ok)
            #expect(!invoke.string.contains("access_token"))

            // Office asks the app to sign in; the app gets a code for Office's client and answers.
            let officeRequest = try SignInRequest(string: "contoso:client_id=\(SignInFixture.officeClientID)&response_type=code&scope=wopi&app=word&action=A-1")
            let grant = try await http.send(signIn.appToAppRequest(for: officeRequest, accessToken: accessToken))
            #expect(grant.status == .ok, "\(grant.body)")
            let answer = try signIn.answer(to: officeRequest, appToAppResponse: Data(grant.body.utf8))
            #expect(answer.scheme == "ms-word-tp" && answer.action == "A-1")
            // Office redeems the answer's code with its own credentials.
            let redeemed = try await http.redeem(try #require(answer.code), sc: answer.sessionContext, redirect: nil)
            #expect(redeemed.status == .ok, "\(redeemed.body)")

            // The app's code is single-use: a replay is refused and read as a refusal (and revokes the session).
            let replay = try await http.send(signIn.tokenRequest(code: code))
            #expect {
                try signIn.accessToken(fromTokenResponse: Data(replay.body.utf8))
            } throws: { "\($0)".contains("invalid_grant") }
        }
    }

    /// The path and query of a URL, as the test client takes them.
    static func uri(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        return (components?.percentEncodedPath ?? "/") + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
    }
}

extension HTTPSession {
    /// Sends a Foundation `URLRequest` exactly as built: method, headers and body.
    func send(_ request: URLRequest) async throws -> HTTPReply {
        let url = try #require(request.url)
        var headers = HTTPFields()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers[try #require(HTTPField.Name(name))] = value
        }
        let method = HTTPRequest.Method(request.httpMethod ?? "GET") ?? .get
        let response = try await client.execute(uri: HostClientFlowTests.uri(url), method: method, headers: headers,
                                                 body: request.httpBody.map { ByteBuffer(bytes: $0) })
        return HTTPReply(status: response.status, headers: response.headers, body: String(buffer: response.body))
    }
}
