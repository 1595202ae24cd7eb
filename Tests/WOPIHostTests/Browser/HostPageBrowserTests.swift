import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The host page of a browser editor in headless Chromium, against a stand-in editor served by
/// the test (``StandInEditor``): the link on the folder page, the form that carries the token,
/// the PostMessage handshake, a foreign origin's message ignored, and `UI_Close`.
@Suite("Host page in a browser", .serialized)
struct HostPageBrowserTests {
    @Test("Open in browser: the form posts token and ttl to the action URL, App_LoadingStatus → Host_PostmessageReady, UI_SaveAs → Action_SaveAs, a foreign message is ignored, UI_Close goes back")
    func hostPage() async throws {
        try await StandInEditor.withHost { editor, host in
            try await HeadlessChromium.run { driver in
                let browser = Browser(driver: driver)
                try await browser.signInFromFrontPage(of: host)

                // The folder page offers the browser editor beside the Office links.
                let id = host.report.id.rawValue
                let link = try await driver.element("li[data-name='Report.docx'] a.browser-edit")
                #expect(try await driver.text(link) == "Open in browser")
                #expect(try await driver.attribute("href", of: link) == "/open/\(id)?action=edit")
                try await driver.click(link)

                // The form arrives at the action URL with the token and its expiry; the query has the filled placeholders.
                try await browser.waitFor("the host page's form at the editor") { !editor.postedForms.isEmpty }
                let form = try #require(editor.postedForms.first)
                let token = try #require(form.fields["access_token"])
                let claims = try host.backend.tokens.verify(token, for: .file(host.report.id), now: Date())
                #expect(claims.userID == host.user.id)
                #expect(form.fields["access_token_ttl"] == String(Int64((claims.expiresAt.timeIntervalSince1970 * 1000).rounded(.down))))
                #expect(form.query["wopisrc"] == "\(host.baseURL)/wopi/files/\(id)")
                #expect(form.query["ui"] == "en-US")
                #expect(form.query["IsLicensedUser"] == nil) // not a business user: the placeholder is removed
                #expect(form.postMessageOrigin == host.baseURL)

                // The host page: viewport, the discovery's favicon, the frame named after the file.
                #expect(try await driver.currentURL() == "\(host.baseURL)/open/\(id)?action=edit")
                #expect(try await driver.elements("meta[name='viewport']").count == 1)
                #expect(try await driver.attribute("href", of: try await driver.element("link[rel='shortcut icon']")) == "\(editor.origin)/icon.ico")
                #expect(try await driver.attribute("title", of: try await driver.element("iframe#editor")) == "Editor for Report.docx")

                // The handshake, then the foreign frame's UI_Close is ignored: the page stays.
                try await browser.waitFor("Host_PostmessageReady at the editor") { editor.reported.contains("Host_PostmessageReady") }
                // Collabora's UI_SaveAs is answered with Action_SaveAs naming a copy in the asked format.
                try await browser.waitFor("Action_SaveAs at the editor") { editor.reported.contains("Action_SaveAs:Report (copy).odt") }
                try await browser.waitFor("the foreign frame's message") { editor.reported.contains("foreign-sent") }
                try await browser.waitFor("the host page to ignore the foreign message") {
                    try await driver.execute("return document.body.getAttribute('data-ignored-messages');") as? String == "1"
                }
                #expect(try await driver.currentURL() == "\(host.baseURL)/open/\(id)?action=edit")

                // The editor's own UI_Close goes back to the folder.
                _ = try await driver.execute("document.getElementById('editor').contentWindow.postMessage('send-close', '*');")
                try await browser.waitFor("the folder after UI_Close") {
                    try await driver.currentURL() == "\(host.baseURL)/folders/\(host.user.rootContainerID.rawValue)"
                }
                #expect(try await driver.elements("#listing").count == 1)
            }
        }
    }

    @Test("New document from template: the row's button makes Letter.docx beside the template, records its origin and opens it on the host page")
    func newDocumentFromTemplate() async throws {
        try await StandInEditor.withHost { editor, host in
            let template = try await host.folder.importFile(data: Data("template".utf8), as: "Letter.dotx", into: host.user.rootContainerID)
            try await HeadlessChromium.run { driver in
                let browser = Browser(driver: driver)
                try await browser.signInFromFrontPage(of: host)
                #expect(try await driver.elements("li[data-name='Report.docx'] button.new-from-template").isEmpty, "a document is no template")
                try await driver.click(try await driver.element("li[data-name='Letter.dotx'] button.new-from-template"))

                try await browser.waitFor("the host page's form at the editor") { !editor.postedForms.isEmpty }
                let created = try #require(try await host.folder.store.children(of: host.user.rootContainerID).files.first { $0.name == "Letter.docx" })
                #expect(created.size == 0, "empty until the editor saves what it made from the template")
                #expect(try await driver.currentURL() == "\(host.baseURL)/open/\(created.id.rawValue)?action=edit&client=standin")
                let form = try #require(editor.postedForms.first)
                #expect(form.query["wopisrc"] == "\(host.baseURL)/wopi/files/\(created.id.rawValue)")
                let claims = try host.backend.tokens.verify(try #require(form.fields["access_token"]), for: .file(created.id), now: Date())
                #expect(claims.userID == host.user.id)
                #expect(try await host.backend.templateOrigins?.templateOrigin(of: created.id) == template.id)
            }
        }
    }
}
