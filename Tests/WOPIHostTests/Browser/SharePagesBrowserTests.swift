import Foundation
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// The share-link pages as a recipient sees them on a 320 px phone whose browser speaks German or
/// Chinese: the page's language and title, the date as that language writes it and on one line,
/// long names wrapped inside the screen, and the invalid-link page.
@Suite("Share pages in a browser", .serialized)
struct SharePagesBrowserTests {
    /// A folder name with no space to break at, longer than two phone widths.
    static let longName = "Quartalsberichte_Vertrieb_und_Marketing_Gesamtübersicht_2026_最终版本_endgültig_freigegeben"

    @Test("shared file, shared folder with long names, and an invalid link, in the browser's language at 320 px",
          arguments: [("de-DE", PageLanguage.german), ("zh-CN", PageLanguage.simplifiedChinese)])
    func sharePages(acceptLanguage: String, language: PageLanguage) async throws {
        try await BrowserHost.run { host in
            let folder = try await host.folder.store.createContainer(named: Self.longName, in: host.user.rootContainerID)
            _ = try await host.folder.importFile(data: Data("x".utf8), as: Self.longName + ".docx", into: folder.id)
            let fileLink = host.backend.shareLink(user: host.user.id, item: host.report.id, isContainer: false)
            let folderLink = host.backend.shareLink(user: host.user.id, item: folder.id, isContainer: true)
            let strings = language.sharePage
            try await HeadlessChromium.run(language: acceptLanguage) { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)

                try await driver.navigate(fileLink)
                try await browser.waitFor("the shared file page") { try await driver.elements("#share-download").count == 1 }
                #expect(try await Self.layout(driver) == Layout(lang: language.rawValue, title: "Report.docx · \(strings.sharedFile) · WOPIKit",
                                                                fits: true))
                let time = try await driver.element("time")
                #expect(try await driver.text(time) == language.dateTime(host.report.modifiedAt))
                #expect(try await driver.execute("return document.querySelector('time').getClientRects().length;") as? Int == 1,
                        "the date is on one line")
                #expect(try await driver.text(try await driver.element("#share-download")) == language.webFront.download)
                try await pages.check("30-shared-file-\(language.rawValue)")

                try await driver.navigate(folderLink)
                try await browser.waitFor("the shared folder page") { try await driver.elements("#shared-entries").count == 1 }
                #expect(try await Self.layout(driver) == Layout(lang: language.rawValue, title: "\(Self.longName) · \(strings.sharedFolder) · WOPIKit",
                                                                fits: true))
                #expect(try await driver.text(try await driver.element("h1")).replacingOccurrences(of: "\n", with: "") == Self.longName)
                #expect(try await driver.attribute("data-name", of: try await driver.element("#shared-entries li")) == Self.longName + ".docx")
                try await pages.check("31-shared-folder-long-name-\(language.rawValue)")

                try await driver.navigate(host.baseURL + "/share/not-a-token")
                try await browser.waitFor("the invalid-link page") { try await driver.elements("#error").count == 1 }
                #expect(try await Self.layout(driver) == Layout(lang: language.rawValue, title: "\(strings.invalidTitle) · WOPIKit", fits: true))
                #expect(try await driver.text(try await driver.element("h1")) == strings.invalidTitle)
                #expect(try await driver.text(try await driver.element("#error")) == strings.invalidMessage)
                try await pages.check("32-invalid-link-\(language.rawValue)")

                // The language switch on a share page works as on the web front.
                try await driver.navigate(fileLink)
                try await browser.waitFor("the footer") { try await driver.elements("footer a[hreflang=en]").count == 1 }
                try await driver.click(try await driver.element("footer a[hreflang=en]"))
                try await browser.waitFor("the English page") { try await driver.execute("return document.documentElement.lang;") as? String == "en" }
                #expect(try await driver.title() == "Report.docx · Shared file · WOPIKit")
            }
        }
    }

    /// What the frame of a page says about itself.
    struct Layout: Equatable {
        var lang: String
        var title: String
        /// The document is no wider than the viewport.
        var fits: Bool
    }

    static func layout(_ driver: WebDriverClient) async throws -> Layout {
        let values = try await driver.execute("""
            return [document.documentElement.lang, document.title,
                    document.documentElement.scrollWidth <= window.innerWidth && window.innerWidth === 320];
            """) as? [Any] ?? []
        return Layout(lang: values.first as? String ?? "", title: values.dropFirst().first as? String ?? "", fits: values.last as? Bool ?? false)
    }
}
