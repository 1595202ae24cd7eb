import Foundation
import GRDB
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// "New document from template" over real HTTP, as a signed-in browser and then a browser editor use it:
/// the web front's form, the host page it leads to, and CheckFileInfo's `TemplateSource` until the first save.
@Suite("Documents from templates over HTTP")
struct TemplateSourceHTTPTests {
    /// A Collabora-style discovery that edits OpenDocument text (by MIME type) and Word documents (by extension), and nothing else.
    static func clients() async throws -> WebClients {
        let document = Data("""
            <wopi-discovery><net-zone name="external-http">
            <app name="application/vnd.oasis.opendocument.text">
            <action default="true" ext="" name="edit" urlsrc="http://collabora.test:9980/browser/1/cool.html?"/></app>
            <app name="writer"><action ext="docx" name="edit" urlsrc="http://collabora.test:9980/browser/1/cool.html?"/></app>
            </net-zone></wopi-discovery>
            """.utf8)
        return try await WebClients([try WebClientSpec(name: "collabora", discoveryURL: "http://collabora.test/hosting/discovery")]) { _ in document }
    }

    static let templateBytes = Data("an OpenDocument text template".utf8)

    /// A host with browser editors, carol signed in, and her template `Letter.ott`.
    static func withCarol(_ body: (TestHost, inout WebFrontHTTPTests.Visitor, UserRecord, FileRecord) async throws -> Void) async throws {
        try await TestHost.run(webClients: try await clients()) { host in
            let carol = try await host.folder.store.createUser(name: "carol", displayName: "Carol",
                                                               passwordHash: PasswordHash(hashing: WebFrontHTTPTests.password, logN: 10))
            let template = try await host.addFile("Letter.ott", templateBytes, owner: carol)
            var visitor = WebFrontHTTPTests.Visitor(host: host)
            expectStatus(try await visitor.signIn(), 303)
            try await body(host, &visitor, carol, template)
        }
    }

    static func names(in folder: ResourceID, of host: TestHost) async throws -> [String] {
        try await host.folder.store.children(of: folder).files.map(\.name).sorted()
    }

    @Test("A template's \"New document from template\" makes an empty document, opens it in the editor, and CheckFileInfo hands over the template until the first save")
    func newDocumentFromTemplate() async throws {
        try await Self.withCarol { host, visitor, carol, template in
            let page = try await visitor.send(.GET, "/")
            expectStatus(page, 200)
            let action = "action=\"/files/\(template.id.rawValue)/new-from-template\""
            #expect(page.html.contains(action), "the template row offers the form")
            #expect(page.html.contains("New document from template"))
            let csrf = try #require(WebFrontHTTPTests.Visitor.csrf(in: page))
            #expect(page.html.contains("\(action) class=\"open\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">"),
                    "the form carries the session's CSRF token")

            let created = try await visitor.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("csrf", csrf)])
            expectStatus(created, 303)
            let document = try #require(try await host.folder.store.file(named: "Letter.odt", in: carol.rootContainerID))
            #expect(document.size == 0, "a new, empty document")
            #expect(created.header("Location") == "/open/\(document.id.rawValue)?action=edit&client=collabora")
            // The redirect leads to the editor's host page for the new document.
            let hostPage = try await visitor.send(.GET, try #require(created.header("Location")))
            expectStatus(hostPage, 200)
            #expect(hostPage.html.contains("WOPISrc=https%3A%2F%2Fwopi.invalid%2Fwopi%2Ffiles%2F\(document.id.rawValue)"))

            // The editor's CheckFileInfo names the template; its URL serves the template's bytes.
            let token = host.token(carol, .file(document.id))
            let info = try await host.checkFileInfo(document.id.rawValue, token: token).json()
            #expect(info["Size"]?.int == 0)
            let source = try #require(info["TemplateSource"]?.string)
            #expect(source.hasPrefix("https://wopi.invalid/wopi/files/\(template.id.rawValue)/contents?access_token="))
            let fetched = try await host.send(url: source)
            expectStatus(fetched, 200)
            #expect(fetched.body == Self.templateBytes)

            // The editor saves the document made from the template: from then on it opens the document itself.
            expectStatus(try await host.putFile(document.id.rawValue, token: token, lock: nil, Data("filled in".utf8)), 200)
            let saved = try await host.checkFileInfo(document.id.rawValue, token: token).json()
            #expect(saved["Size"]?.int == 9)
            #expect(saved["TemplateSource"] == nil)

            // A second document from the same template gets a free name.
            let again = try await visitor.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("csrf", csrf)])
            expectStatus(again, 303)
            #expect(try await Self.names(in: carol.rootContainerID, of: host) == ["Letter (1).odt", "Letter.odt", "Letter.ott"])
        }
    }

    @Test("TemplateSource only for a caller who can read the template: an editor the document alone is shared with gets none")
    func templateSourceNeedsTheTemplate() async throws {
        try await Self.withCarol { host, visitor, carol, template in
            let csrf = try #require(WebFrontHTTPTests.Visitor.csrf(in: try await visitor.send(.GET, "/")))
            expectStatus(try await visitor.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("csrf", csrf)]), 303)
            let document = try #require(try await host.folder.store.file(named: "Letter.odt", in: carol.rootContainerID))
            let dave = try await host.makeUser("dave")
            _ = try await host.folder.store.share(document.id, kind: .file, with: dave.id, role: .editor, now: Date())
            let forDave = try await host.checkFileInfo(document.id.rawValue, token: host.token(dave, .file(document.id))).json()
            #expect(forDave["BaseFileName"]?.string == "Letter.odt")
            #expect(forDave["TemplateSource"] == nil)
            _ = try await host.folder.store.share(template.id, kind: .file, with: dave.id, role: .viewer, now: Date())
            let shared = try await host.checkFileInfo(document.id.rawValue, token: host.token(dave, .file(document.id))).json()
            #expect(shared["TemplateSource"]?.string?.hasPrefix("https://wopi.invalid/wopi/files/\(template.id.rawValue)/contents") == true)
        }
    }

    @Test("Refused, creating nothing: a file that is no template, a template no editor fills, another user's template, a missing or forged CSRF token")
    func refusals() async throws {
        try await Self.withCarol { host, visitor, carol, template in
            let report = try await host.addFile("Report.docx", Data("r".utf8), owner: carol)
            let deck = try await host.addFile("Deck.potx", Data("p".utf8), owner: carol)
            let dave = try await host.makeUser("dave")
            let davesTemplate = try await host.addFile("Memo.ott", Data("m".utf8), owner: dave)
            let page = try await visitor.send(.GET, "/")
            #expect(!page.html.contains("/files/\(report.id.rawValue)/new-from-template"), "a document is no template")
            #expect(!page.html.contains("/files/\(deck.id.rawValue)/new-from-template"), "no editor edits .pptx here")
            let csrf = try #require(WebFrontHTTPTests.Visitor.csrf(in: page))
            let carolsBefore = try await Self.names(in: carol.rootContainerID, of: host)
            let davesBefore = try await Self.names(in: dave.rootContainerID, of: host)

            expectStatus(try await visitor.send(.POST, "/files/\(report.id.rawValue)/new-from-template", form: [("csrf", csrf)]), 400)
            expectStatus(try await visitor.send(.POST, "/files/\(deck.id.rawValue)/new-from-template", form: [("csrf", csrf)]), 400)
            expectStatus(try await visitor.send(.POST, "/files/\(davesTemplate.id.rawValue)/new-from-template", form: [("csrf", csrf)]), 404)
            expectStatus(try await visitor.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("name", "x")]), 403)
            expectStatus(try await visitor.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("csrf", "forged")]), 403)
            #expect(try await Self.names(in: carol.rootContainerID, of: host) == carolsBefore)
            #expect(try await Self.names(in: dave.rootContainerID, of: host) == davesBefore)

            // Signed out: back to sign-in, nothing made.
            var stranger = WebFrontHTTPTests.Visitor(host: host)
            expectStatus(try await stranger.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("csrf", csrf)]), 303)
            #expect(try await Self.names(in: carol.rootContainerID, of: host) == carolsBefore)
        }
    }

    @Test("A store that fails while recording the template gives the 503 page and takes the new document back")
    func storeFailure() async throws {
        try await Self.withCarol { host, visitor, carol, template in
            let csrf = try #require(WebFrontHTTPTests.Visitor.csrf(in: try await visitor.send(.GET, "/")))
            let before = try await Self.names(in: carol.rootContainerID, of: host)
            // The records' table disappears under the running host, as when a database is restored half-way.
            try await DatabaseQueue(path: host.dataURL.appendingPathComponent("wopi.sqlite").path).write {
                try $0.execute(sql: "ALTER TABLE template_origins RENAME TO template_origins_gone")
            }
            let failed = try await visitor.send(.POST, "/files/\(template.id.rawValue)/new-from-template", form: [("csrf", csrf)])
            expectStatus(failed, 503)
            #expect(failed.html.contains("Temporarily unavailable"))
            #expect(try await Self.names(in: carol.rootContainerID, of: host) == before, "no document without its template")
        }
    }
}
