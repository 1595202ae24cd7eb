import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WOPICore
import WOPIAuthorization
import WOPIHost

/// A host built from the WOPI routes alone, as a provider that keeps its own authorization server embeds it:
/// the WOPI protocol works, and no sign-in, web front or share page exists, even with an Office registration
/// in its configuration.
@Suite("WOPI routes without the authorization product")
struct WOPIRoutesWithoutAuthorizationTests {
    @Test("the WOPI routes alone serve CheckFileInfo and answer 404 where sign-in and the pages would be")
    func wopiRoutesAlone() async throws {
        let fixture = try await SignInFixture.make()
        defer { try? FileManager.default.removeItem(at: fixture.dataURL) }
        let (token, _) = fixture.backend.issueToken(user: fixture.alice.id, resource: .file(fixture.fileA.id))
        let app = Application(router: WOPIHostApplication.router(backend: fixture.backend))
        try await app.test(.router) { client in
            let info = try await client.execute(uri: "/wopi/files/\(fixture.fileA.id)?access_token=\(token)", method: .get)
            #expect(info.status == .ok)
            #expect(String(buffer: info.body).contains(#""BaseFileName":"A.docx""#))
            for (path, method) in [(HTTPSession.officeAuthorizeURI(), HTTPRequest.Method.get), ("/oauth2/token", .post), ("/wopibootstrapper", .get),
                                   ("/", .get), ("/signin/oidc", .get), ("/share/anything", .get)] {
                let response = try await client.execute(uri: path, method: method)
                #expect(response.status == .notFound, "\(method) \(path)")
            }
        }
    }

    @Test("the same backend with the authorization routes serves the authorization page")
    func withAuthorizationRoutes() async throws {
        let fixture = try await SignInFixture.make()
        defer { try? FileManager.default.removeItem(at: fixture.dataURL) }
        let app = Application(router: WOPIHostApplication.router(backend: fixture.backend, extensions: [AuthorizationRoutes()]))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: HTTPSession.officeAuthorizeURI(), method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("<form"))
        }
    }
}
