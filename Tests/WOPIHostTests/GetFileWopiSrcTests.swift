import Foundation
import Testing
import TestSupport
import WOPICore
@testable import WOPIHost

/// GetFileWopiSrc (docs/rest/src/ecosystem/GetFileWopiSrc.rst) over real HTTP: a URL the host
/// handed out becomes the file's WOPISrc with a working access token, for a user allowed to open it.
@Suite("GetFileWopiSrc")
struct GetFileWopiSrcTests {
    func getWopiSrc(_ host: TestHost, token: String?, _ hostURL: String?) async throws -> WOPIResponse {
        try await host.override("/wopi/ecosystem", "GET_WOPI_SRC_WITH_ACCESS_TOKEN", token: token,
                                hostURL.map { [("X-WOPI-HostNativeFileName", $0)] } ?? [])
    }

    @Test("A share link and a WOPISrc the host handed out resolve to the file's WOPISrc with a token that opens it")
    func resolvesHandedOutURLs() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let ecosystem = host.token(doc.user, .ecosystem)
            let shared = try await host.fileShareURL(doc.id, token: doc.token, type: "ReadOnly")
            expectStatus(shared, 200)
            let link = try #require(try shared.json()["ShareUrl"]?.string)

            for handedOut in [link, "\(TestHost.publicURL)/wopi/files/\(doc.id)", "\(TestHost.publicURL)/wopi/files/\(doc.id)?access_token=x"] {
                let response = try await getWopiSrc(host, token: ecosystem, handedOut)
                expectStatus(response, 200, handedOut)
                let url = try #require(try response.json()["Url"]?.string)
                #expect(url.hasPrefix("\(TestHost.publicURL)/wopi/files/\(doc.id)?access_token="), "\(url)")
                // The token in the answer opens the file.
                let info = try await host.send(url: url)
                expectStatus(info, 200)
                #expect(try info.json()["BaseFileName"]?.string == doc.file.name)
            }
        }
    }

    @Test("Another user, a folder link, a forged, expired or foreign URL, or no header: 404; a bad token: 401; another override: 501")
    func refusals() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let folder = try await host.addContainer("Projects", in: doc.user.rootContainerID)
            let mallory = try await host.makeUser("mallory")
            let ecosystem = host.token(doc.user, .ecosystem)
            let link = try #require(try await host.fileShareURL(doc.id, token: doc.token, type: "ReadOnly").json()["ShareUrl"]?.string)
            let folderLink = try #require(try await host.containerShareURL(folder.id.rawValue, token: host.token(doc.user, .container(folder.id)),
                                                                           type: "ReadOnly").json()["ShareUrl"]?.string)

            // Someone not allowed to open the file learns nothing from the owner's link or WOPISrc.
            let malloryToken = host.token(mallory, .ecosystem)
            expectStatus(try await getWopiSrc(host, token: malloryToken, link), 404)
            expectStatus(try await getWopiSrc(host, token: malloryToken, "\(TestHost.publicURL)/wopi/files/\(doc.id)"), 404)

            let forged = link.tampered()
            let expiring = host.backend.shareLink(user: doc.user.id, item: doc.file.id, isContainer: false,
                                                  notAfter: host.backend.configuration.now().addingTimeInterval(60))
            host.clock.advance(by: 120)
            let refused = [folderLink, forged, expiring, "https://elsewhere.invalid/wopi/files/\(doc.id)", "\(TestHost.publicURL)/share/",
                           "\(TestHost.publicURL)/wopi/files/\(ResourceID.random().rawValue)", "\(TestHost.publicURL)/wopi/files/\(doc.id)/contents",
                           "\(TestHost.publicURL)/wopi/containers/\(folder.id.rawValue)", "not a url", ""]
            for url in refused {
                expectStatus(try await getWopiSrc(host, token: ecosystem, url), 404, url)
            }
            expectStatus(try await getWopiSrc(host, token: ecosystem, nil), 404)
            expectStatus(try await getWopiSrc(host, token: "bogus", link), 401)
            expectStatus(try await getWopiSrc(host, token: doc.token, link), 401, "a file token is not an ecosystem token")
            expectStatus(try await host.override("/wopi/ecosystem", "SOMETHING_ELSE", token: ecosystem), 501)
        }
    }
}
