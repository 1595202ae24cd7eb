import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The web front used as a person uses it: headless Chromium at 320 × 640 CSS pixels (an iPhone
/// SE's width), driven over WebDriver. Every page is checked for script errors, overflow and
/// labels, and photographed into `artifacts/screenshots/`.
@Suite("Web front in a browser", .serialized)
struct WebFrontBrowserTests {
    @Test("sign in, upload with progress, Office links, rename, folders, share, download, languages, sign out")
    func fullVisit() async throws {
        try await BrowserHost.run { host in
            try await HeadlessChromium.run { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)

                // A wrong password shows the error and keeps the name.
                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                try await pages.check("01-sign-in")
                try await browser.signIn(password: "not-the-password")
                try await browser.waitFor("the sign-in error") { try await driver.elements("#error").count == 1 }
                #expect(try await driver.text(try await driver.element("#error")) == "The user name or password is wrong.")
                #expect(try await driver.attribute("value", of: try await driver.element("#username")) == BrowserHost.userName)
                try await pages.check("02-sign-in-wrong-password")

                // The right password opens the root folder with the document in it.
                try await browser.signIn(password: BrowserHost.password)
                try await browser.waitFor("the file list") { try await driver.elements("#listing").count == 1 }
                #expect(try await driver.text(try await driver.element("h1")) == "My files")
                #expect(try await browser.names() == ["Report.docx"])
                try await pages.check("03-my-files")

                // The exact Office links: WOPISrc, service, user id, file name, |a|Web, in the encoded form.
                let wopiSrc = "http%3A//127.0.0.1:\(host.port)/wopi/files/\(host.report.id.rawValue)"
                let row = "li[data-name='Report.docx']"
                #expect(try await driver.attribute("href", of: try await driver.element("\(row) a.office-edit"))
                        == "ms-word:ofe%7Cu%7C\(wopiSrc)%7Cd%7CWOPIKit%7Ce%7C\(host.user.id.rawValue)%7Cn%7CReport.docx%7Ca%7CWeb")
                #expect(try await driver.attribute("href", of: try await driver.element("\(row) a.office-view"))
                        == "ms-word:ofv%7Cu%7C\(wopiSrc)%7Cd%7CWOPIKit%7Ce%7C\(host.user.id.rawValue)%7Cn%7CReport.docx%7Ca%7CWeb")
                #expect(try await driver.text(try await driver.element("\(row) a.office-edit")) == "Open in Word")
                #expect(try await driver.attribute("href", of: try await driver.element("\(row) a.app-store")) == "https://apps.apple.com/app/id586447913")

                // Download with the browser's own session cookie.
                let downloaded = try await driver.executeAsync("""
                    var done = arguments[arguments.length - 1];
                    fetch(document.querySelector(arguments[0] + ' a.name').href).then(function (r) { return r.text(); })
                      .then(done, function (e) { done('failed: ' + e); });
                    """, [row]) as? String
                #expect(downloaded == "Quarterly report")

                // Upload two files; the progress bar reaches 100% and both appear in the list.
                let uploads = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-upload-\(UUID().uuidString)", isDirectory: true)
                try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: uploads) }
                let budget = uploads.appendingPathComponent("Budget.xlsx")
                try Data((0..<(3 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: budget)
                let deck = uploads.appendingPathComponent("Pitch deck.pptx")
                try Data("slides".utf8).write(to: deck)
                try await driver.type(budget.path + "\n" + deck.path, into: try await driver.element("#files"))
                try await driver.click(try await driver.element("#upload-button"))
                try await browser.waitFor("the upload to finish") {
                    (try await driver.text(try await driver.element("#upload-status"))).contains("100%")
                }
                #expect(try await driver.execute("return document.getElementById('upload-progress').value;") as? Int == 100)
                #expect(try await driver.text(try await driver.element("#upload-status")) == "Uploaded (100%)")
                #expect(try await browser.names() == ["Budget.xlsx", "Pitch deck.pptx", "Report.docx"])
                let budgetRecord = try #require(try await host.folder.store.file(named: "Budget.xlsx", in: host.user.rootContainerID))
                #expect(budgetRecord.size == 3 * 1024 * 1024)
                #expect(try await driver.attribute("href", of: try await driver.element("li[data-name='Budget.xlsx'] a.office-edit"))
                        == "ms-excel:ofe%7Cu%7Chttp%3A//127.0.0.1:\(host.port)/wopi/files/\(budgetRecord.id.rawValue)%7Cd%7CWOPIKit%7Ce%7C"
                        + "\(host.user.id.rawValue)%7Cn%7CBudget.xlsx%7Ca%7CWeb")
                #expect(try await driver.attribute("href", of: try await driver.element("li[data-name='Pitch deck.pptx'] a.office-edit"))?
                        .hasPrefix("ms-powerpoint:ofe%7Cu%7C") == true)
                try await pages.check("04-uploaded")

                // Rename through the "More" panel.
                try await driver.click(try await driver.element("li[data-name='Budget.xlsx'] summary"))
                _ = try await driver.execute("document.querySelector(\"li[data-name='Budget.xlsx']\").scrollIntoView();")
                try await pages.check("05-more-panel")
                let field = try await driver.element("li[data-name='Budget.xlsx'] input[name=name]")
                try await driver.clear(field)
                try await driver.type("Plan 2027.xlsx", into: field)
                try await driver.click(try await driver.element("li[data-name='Budget.xlsx'] button.rename"))
                try await browser.waitFor("the renamed file") { try await browser.names().contains("Plan 2027.xlsx") }
                #expect(try await browser.names() == ["Pitch deck.pptx", "Plan 2027.xlsx", "Report.docx"])

                // A new folder, its page with breadcrumbs, and back.
                try await driver.click(try await driver.element("details.tools summary"))
                try await driver.type("Projects", into: try await driver.element("#new-folder"))
                try await driver.click(try await driver.element("details.tools button"))
                try await browser.waitFor("the new folder") { try await browser.names().contains("Projects") }
                try await driver.click(try await driver.element("li[data-name='Projects'] a.name"))
                try await browser.waitFor("the folder page") { try await driver.text(try await driver.element("h1")) == "Projects" }
                #expect(try await driver.text(try await driver.element("nav.crumbs")).contains("My files"))
                #expect(try await driver.text(try await driver.element("#listing")) == "This folder is empty.")
                try await pages.check("06-folder")
                try await driver.click(try await driver.element("nav.crumbs a"))
                try await browser.waitFor("the root folder") { try await driver.text(try await driver.element("h1")) == "My files" }

                // Deleting a file (confirmed on a page of its own) moves it to the Trash: out of the list and the store's lookups.
                try await driver.click(try await driver.element("li[data-name='Pitch deck.pptx'] summary"))
                try await driver.click(try await driver.element("li[data-name='Pitch deck.pptx'] button.delete"))
                try await browser.waitFor("the delete confirmation") { try await driver.elements("#confirm-delete").count == 1 }
                try await driver.click(try await driver.element("#confirm-delete"))
                try await browser.waitFor("the Trash page") { try await driver.elements("#moved").count == 1 }
                try await driver.click(try await driver.element("#trash-home"))
                try await browser.waitFor("the deleted file to go") { !(try await browser.names().contains("Pitch deck.pptx")) }
                #expect(try await browser.names() == ["Projects", "Plan 2027.xlsx", "Report.docx"])
                #expect(try await host.folder.store.file(named: "Pitch deck.pptx", in: host.user.rootContainerID) == nil)

                // A share link, opened like a recipient would: the share page shows the file.
                try await driver.click(try await driver.element("li[data-name='Report.docx'] summary"))
                try await driver.click(try await driver.element("li[data-name='Report.docx'] button.share"))
                try await browser.waitFor("the share page") { try await driver.elements("#share-link").count == 1 }
                try await pages.check("07-share-link")
                let link = try #require(try await driver.attribute("value", of: try await driver.element("#share-link")))
                #expect(link.hasPrefix(host.baseURL + "/share/"))
                try await driver.navigate(link)
                try await browser.waitFor("the shared file page") { try await driver.text(try await driver.element("h1")) == "Report.docx" }
                try await pages.check("08-shared-file")
                try await driver.navigate(host.baseURL + "/")

                // Languages: the switch changes the page and is remembered.
                try await browser.waitFor("the root folder") { try await driver.elements("footer a[hreflang=de]").count == 1 }
                try await driver.click(try await driver.element("footer a[hreflang=de]"))
                try await browser.waitFor("the German page") { try await driver.text(try await driver.element("h1")) == "Meine Dateien" }
                #expect(try await driver.execute("return document.documentElement.lang;") as? String == "de")
                #expect(try await driver.text(try await driver.element("li[data-name='Report.docx'] a.office-edit")) == "In Word öffnen")
                try await pages.check("09-german")
                try await driver.navigate(host.baseURL + "/folders/\(host.user.rootContainerID.rawValue)")
                try await browser.waitFor("the remembered language") { try await driver.text(try await driver.element("h1")) == "Meine Dateien" }
                try await driver.click(try await driver.element("footer a[hreflang=zh-Hans]"))
                try await browser.waitFor("the Chinese page") { try await driver.text(try await driver.element("h1")) == "我的文件" }
                try await pages.check("10-chinese")
                try await driver.click(try await driver.element("footer a[hreflang=en]"))
                try await browser.waitFor("the English page") { try await driver.text(try await driver.element("h1")) == "My files" }

                // Sign out: back to the form, and the folder is no longer reachable.
                try await driver.click(try await driver.element("#signout"))
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                try await pages.check("11-signed-out")
                try await driver.navigate(host.baseURL + "/folders/\(host.user.rootContainerID.rawValue)")
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                #expect(try await driver.elements("#listing").isEmpty)
            }
        }
    }

    @Test("a session cookie saved before signing out shows the sign-in form when put back")
    func replayedCookieAfterSignOut() async throws {
        try await BrowserHost.run { host in
            try await HeadlessChromium.run { driver in
                let browser = Browser(driver: driver)
                try await browser.signInFromFrontPage(of: host)
                let saved = try #require(try await driver.cookie("wopi_session"))

                try await driver.click(try await driver.element("#signout"))
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                #expect(try await driver.cookie("wopi_session") == nil, "the browser forgot the cookie")

                // Someone who copied the cookie puts it back: the host no longer knows the session.
                try await driver.addCookie("wopi_session", value: saved)
                #expect(try await driver.cookie("wopi_session") == saved)
                try await driver.navigate(host.baseURL + "/folders/\(host.user.rootContainerID.rawValue)")
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                #expect(try await driver.elements("#listing").isEmpty)
                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                #expect(try await driver.elements("#signout").isEmpty, "nobody is signed in")

                // Signing in again works, with a new session.
                try await browser.signIn(password: BrowserHost.password)
                try await browser.waitFor("the file list") { try await driver.elements("#listing").count == 1 }
                #expect(try await driver.cookie("wopi_session") != saved)
            }
        }
    }

    @Test("a file above the size limit is refused with a message, by the page and by the server")
    func sizeLimit() async throws {
        try await BrowserHost.run(maximumFileSize: 1024) { host in
            try await HeadlessChromium.run { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)
                try await browser.signInFromFrontPage(of: host)
                let big = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-big-\(UUID().uuidString).docx")
                try Data(repeating: 7, count: 5000).write(to: big)
                defer { try? FileManager.default.removeItem(at: big) }

                // The page knows the limit and says so before sending anything.
                try await driver.type(big.path, into: try await driver.element("#files"))
                try await driver.click(try await driver.element("#upload-button"))
                try await browser.waitFor("the refusal") { !(try await driver.text(try await driver.element("#upload-status"))).isEmpty }
                #expect(try await driver.text(try await driver.element("#upload-status")) == "\(big.lastPathComponent) is larger than the limit of 1 KiB.")
                try await pages.check("12-too-large")

                // With the page's check out of the way, the server refuses it (413) and the page shows its message.
                _ = try await driver.execute("document.getElementById('upload').setAttribute('data-max-size', '999999999');")
                try await driver.click(try await driver.element("#upload-button"))
                try await browser.waitFor("the server's refusal") {
                    (try await driver.text(try await driver.element("#upload-status"))).contains("larger than the limit")
                }
                #expect(try await driver.text(try await driver.element("#upload-status")) == "\(big.lastPathComponent) is larger than the limit of 1 KiB.")
                #expect(try await browser.names() == ["Report.docx"])
                #expect(try await host.folder.store.children(of: host.user.rootContainerID).files.map(\.name) == ["Report.docx"])
            }
        }
    }

    @Test("another user signs in, opens a ReadWrite link, adds the document to Shared with me and finds it on their page")
    func readWriteLink() async throws {
        try await BrowserHost.run { host in
            let bob = try await host.folder.store.createUser(name: "bob", displayName: "Bob Example",
                                                             passwordHash: PasswordHash(hashing: "bob-password-1", logN: 10))
            let link = host.backend.shareLink(user: host.user.id, item: host.report.id, isContainer: false, readWrite: true)
            try await HeadlessChromium.run { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)
                // Signed out, the page says how to edit.
                try await driver.navigate(link)
                try await browser.waitFor("the shared file page") { try await driver.text(try await driver.element("h1")) == "Report.docx" }
                #expect(try await driver.text(try await driver.element("body")).contains("Sign in"))
                #expect(try await driver.elements("form[action$='/accept'] button").isEmpty)
                try await pages.check("24-read-write-link-signed-out")

                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
                try await browser.signIn(as: "bob", password: "bob-password-1")
                try await browser.waitFor("bob's files") { try await driver.elements("#listing").count == 1 }

                try await driver.navigate(link)
                try await browser.waitFor("the offer to edit") { try await driver.elements("form[action$='/accept'] button").count == 1 }
                try await pages.check("25-read-write-link-offer")
                try await driver.click(try await driver.element("form[action$='/accept'] button"))
                try await browser.waitFor("the confirmation") { (try await driver.text(try await driver.element("body"))).contains("You can edit this") }
                try await pages.check("26-read-write-link-accepted")

                // bob's own root page lists it under "Shared with me", with his Office links.
                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the shared section") { try await driver.elements("#shared li[data-name='Report.docx']").count == 1 }
                #expect(try await driver.text(try await driver.element("#shared-heading")) == "Shared with me")
                #expect(try await driver.text(try await driver.element("#shared .meta")) == "Shared by Alice Example · you can edit")
                #expect(try await driver.attribute("href", of: try await driver.element("#shared a.office-edit"))
                        == "ms-word:ofe%7Cu%7Chttp%3A//127.0.0.1:\(host.port)/wopi/files/\(host.report.id.rawValue)%7Cd%7CWOPIKit%7Ce%7C\(bob.id.rawValue)%7Cn%7CReport.docx%7Ca%7CWeb")
                #expect(try await browser.names() == [], "bob's own folder stays his own")
                try await pages.check("27-shared-with-me")
            }
            let access = try await host.folder.store.fileAccess(host.report.id, by: bob.id)
            #expect(access?.role == .editor)
        }
    }

    @Test("the OAuth sign-in and consent pages and a shared folder page pass the same checks")
    func oauthAndSharePages() async throws {
        try await BrowserHost.run { host in
            try await HeadlessChromium.run { driver in
                let pages = PageChecks(driver: driver)
                let browser = Browser(driver: driver)
                try await driver.navigate(host.baseURL + "/oauth2/authorize?client_id=\(BrowserHost.officeClientID)"
                                          + "&redirect_uri=https%3A%2F%2Flocalhost&response_type=code&state=s1&rs=de-DE")
                try await browser.waitFor("the OAuth sign-in page") { try await driver.elements("#password").count == 1 }
                #expect(try await driver.text(try await driver.element("h1")) == "Bei WOPIKit anmelden")
                try await pages.check("20-oauth-sign-in")
                try await browser.signIn(password: "wrong")
                try await browser.waitFor("the OAuth error") { try await driver.elements("p.error").count == 1 }
                #expect(try await driver.text(try await driver.element("p.error")) == "Benutzername oder Kennwort ist falsch.")
                try await pages.check("21-oauth-wrong-password")
                try await browser.signIn(password: BrowserHost.password)
                try await browser.waitFor("the consent page") { try await driver.elements("button[value=allow]").count == 1 }
                try await pages.check("22-oauth-consent")

                let projects = try await host.folder.store.createContainer(named: "Projects", in: host.user.rootContainerID)
                _ = try await host.folder.importFile(data: Data("x".utf8), as: "Notes.docx", into: projects.id)
                try await driver.navigate(host.backend.shareLink(user: host.user.id, item: projects.id, isContainer: true))
                try await browser.waitFor("the shared folder page") { try await driver.text(try await driver.element("h1")) == "Projects" }
                #expect(try await driver.text(try await driver.element("ul")).contains("Notes.docx"))
                try await pages.check("23-shared-folder")
                try await driver.navigate(host.baseURL + "/share/not-a-token")
                try await browser.waitFor("the refusal") { (try await driver.text(try await driver.element("body"))).contains("not valid") }
                #expect(try await driver.text(try await driver.element("body")).contains("not valid"))

                // The console check itself sees a script error (so a silent page above means no error, not no check).
                _ = try await driver.browserLog()
                try await driver.navigate("data:text/html,<title>t</title><script>missingFunction()</script>")
                #expect(try await driver.browserLog().contains { $0.level == "SEVERE" && $0.message.contains("missingFunction") })
            }
        }
    }
}

/// Steps a person takes, and waiting for the page to show their result.
struct Browser: Sendable {
    let driver: WebDriverClient

    /// Fills the sign-in form shown (web front or OAuth) and submits it.
    func signIn(as user: String = BrowserHost.userName, password: String) async throws {
        let name = try await driver.element("#username")
        try await driver.clear(name)
        try await driver.type(user, into: name)
        try await driver.type(password, into: try await driver.element("#password"))
        try await driver.click(try await driver.element("button[type=submit]"))
    }

    /// Opens `host`'s front page and signs alice in; returns once her files are listed.
    func signInFromFrontPage(of host: BrowserHost) async throws {
        try await driver.navigate(host.baseURL + "/")
        try await waitFor("the sign-in form") { try await driver.elements("form#signin").count == 1 }
        try await signIn(password: BrowserHost.password)
        try await waitFor("the file list") { try await driver.elements("#listing").count == 1 }
    }

    /// The names in the folder listing, in order.
    func names() async throws -> [String] {
        try await driver.execute("""
            return Array.prototype.map.call(document.querySelectorAll('#listing li[data-name]'), function (li) { return li.getAttribute('data-name'); });
            """) as? [String] ?? []
    }

    /// Waits until `condition` holds: pages load and scripts run asynchronously. Gives up after a
    /// minute (a hang, not a speed limit) and fails naming what it waited for.
    func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<600 {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrowserWaitError(what: what)
    }
}

/// A page never showed what a step waited for.
struct BrowserWaitError: Error, CustomStringConvertible {
    var what: String
    var description: String { "the browser never showed \(what)" }
}
