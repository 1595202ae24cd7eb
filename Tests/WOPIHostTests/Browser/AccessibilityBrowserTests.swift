import Foundation
import GRDB
import Testing
import WOPICore
@testable import WOPIHost

/// axe-core over every page a person can reach, in each language the pages speak, at the phone
/// width: zero violations of any rule, each reported with its id, impact and elements.
///
/// ``pages`` is the list: a new page is one more line there. Each entry says whether it is seen
/// signed in, and how a person gets to it; the tour signs in or out as the next page needs.
@Suite("Accessibility (axe-core)", .serialized)
struct AccessibilityBrowserTests {
    /// One page state to check: a name for reports and screenshots, and how to reach it.
    struct Page: Sendable {
        var name: String
        var signedIn: Bool
        var reach: @Sendable (Tour) async throws -> Void

        init(_ name: String, signedIn: Bool, _ reach: @escaping @Sendable (Tour) async throws -> Void) {
            self.name = name
            self.signedIn = signedIn
            self.reach = reach
        }
    }

    static let pages: [Page] = [
        Page("sign-in", signedIn: false) { try await $0.open("/", showing: "form#signin") },
        Page("sign-in-wrong-password", signedIn: false) { tour in
            try await tour.open("/", showing: "form#signin")
            try await tour.browser.signIn(password: "not-the-password")
            try await tour.wait(for: "#error")
        },
        Page("shared-file", signedIn: false) { try await $0.open($0.fixture.fileLink, showing: "#share-download") },
        Page("shared-folder", signedIn: false) { try await $0.open($0.fixture.folderLink, showing: "#shared-entries") },
        Page("read-write-link-signed-out", signedIn: false) { try await $0.open($0.fixture.readWriteLink, showing: "#share-sign-in") },
        Page("invalid-share-link", signedIn: false) { try await $0.open("/share/not-a-token", showing: "#error") },
        Page("oauth-sign-in", signedIn: false) { try await $0.open($0.fixture.authorize, showing: "#password") },
        Page("oauth-wrong-password", signedIn: false) { tour in
            try await tour.open(tour.fixture.authorize, showing: "#password")
            try await tour.browser.signIn(password: "wrong")
            try await tour.wait(for: "p.error")
        },
        Page("oauth-consent", signedIn: false) { tour in
            try await tour.open(tour.fixture.authorize, showing: "#password")
            try await tour.browser.signIn(password: BrowserHost.password)
            try await tour.wait(for: "button[value=allow]")
        },
        Page("oauth-error", signedIn: false) { tour in
            try await tour.open("/oauth2/authorize?client_id=unknown&redirect_uri=https%3A%2F%2Flocalhost&response_type=code&state=s",
                                showing: "p.error")
        },
        Page("my-files", signedIn: true) { try await $0.open("/", showing: "#shared") },
        Page("folder", signedIn: true) { try await $0.open("/folders/\($0.fixture.projects.rawValue)", showing: "nav.crumbs") },
        Page("empty-folder", signedIn: true) { try await $0.open("/folders/\($0.fixture.empty.rawValue)", showing: "#listing") },
        Page("more-panel", signedIn: true) { tour in
            try await tour.open("/", showing: "#listing")
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] summary"))
            try await tour.wait(for: "li[data-name='Report.docx'] details[open]")
        },
        Page("name-refused", signedIn: true) { tour in
            try await tour.open("/", showing: "#listing")
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] summary"))
            let field = try await tour.driver.element("li[data-name='Report.docx'] input[name=name]")
            try await tour.driver.clear(field)
            try await tour.driver.type("Report<2>.docx", into: field)
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] button.rename"))
            try await tour.wait(for: "#error")
        },
        Page("form-expired", signedIn: true) { tour in
            try await tour.open("/", showing: "#listing")
            _ = try await tour.driver.execute("document.querySelectorAll('input[name=csrf]').forEach(function (f) { f.value = 'stale'; });")
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] summary"))
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] button.rename"))
            try await tour.wait(for: "#error")
        },
        Page("share-link", signedIn: true) { tour in
            try await tour.open("/", showing: "#listing")
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] summary"))
            try await tour.driver.click(try await tour.driver.element("li[data-name='Report.docx'] button.share"))
            try await tour.wait(for: "#share-link")
        },
        Page("read-write-link-owner", signedIn: true) { try await $0.open($0.fixture.readWriteLink, showing: "p.notice") },
        Page("not-found", signedIn: true) { try await $0.open("/folders/\(ResourceID.random().rawValue)", showing: "#error") },
        Page("unavailable", signedIn: true) { tour in
            try await tour.withBrokenStore { try await tour.open("/", showing: "#error") }
        },
        Page("trash-empty", signedIn: true) { try await $0.open("/trash", showing: "#trash") },
        Page("host-page", signedIn: true) { try await $0.open("/open/\($0.host.report.id.rawValue)?action=edit", showing: "iframe#editor") },
        Page("delete-confirmation", signedIn: true) { try await $0.open("/folders/\($0.fixture.empty.rawValue)/delete", showing: "#confirm-delete") },
        // Last, as it moves the empty folder to the trash.
        Page("moved-to-trash", signedIn: true) { tour in
            try await tour.open("/folders/\(tour.fixture.empty.rawValue)/delete", showing: "#confirm-delete")
            try await tour.driver.click(try await tour.driver.element("#confirm-delete"))
            try await tour.wait(for: "#trash li[data-name='Archive']")
        },
    ]

    @Test("every page has no axe-core violation", arguments: [("en-US", "en"), ("de-DE", "de"), ("zh-CN", "zh-Hans")])
    func pagesPassAxe(acceptLanguage: String, lang: String) async throws {
        let axe = try AxeCore.script()
        // A browser editor is configured, so the folder pages show "Open in browser" and the host page is reachable.
        try await StandInEditor.withHost { _, host in
            let fixture = try await Fixture(host)
            try await HeadlessChromium.run(language: acceptLanguage) { driver in
                let tour = Tour(host: host, driver: driver, fixture: fixture)
                let checks = PageChecks(driver: driver)
                for page in Self.pages {
                    try await tour.ensure(signedIn: page.signedIn)
                    try await page.reach(tour)
                    let shown = try await driver.execute("return document.documentElement.lang;") as? String
                    #expect(shown == lang, "\(page.name) speaks \(shown ?? "nothing"), not \(lang)")
                    let violations = try await AxeCore.violations(driver, script: axe)
                    let report = violations.map { "  \($0)" }.joined(separator: "\n")
                    #expect(violations.isEmpty, "\(page.name) [\(lang)]: \(violations.count) axe violation(s):\n\(report)")
                    try await checks.check("axe-\(lang)-\(page.name)")
                }
            }
        }
    }

    @Test("the axe check sees violations, on a bare page and on one of the host's pages under its content security policy")
    func axeFindsViolations() async throws {
        let axe = try AxeCore.script()
        try await BrowserHost.run { host in
            try await HeadlessChromium.run { driver in
                try await driver.navigate("data:text/html,<html><body><img src=x><input type=text></body></html>")
                let bare = Set(try await AxeCore.violations(driver, script: axe).map(\.id))
                #expect(bare.isSuperset(of: ["html-has-lang", "document-title", "image-alt", "label"]), "\(bare)")

                try await driver.navigate(host.baseURL + "/share/not-a-token")
                try await Browser(driver: driver).waitFor("the invalid-link page") { try await driver.elements("#error").count == 1 }
                #expect(try await AxeCore.violations(driver, script: axe).isEmpty)
                _ = try await driver.execute("document.querySelector('main').appendChild(document.createElement('img')).src = 'x';")
                let planted = try await AxeCore.violations(driver, script: axe)
                #expect(planted.map(\.id) == ["image-alt"] && planted.first?.targets == ["img"], "\(planted)")
            }
        }
    }

    /// What the pages show: alice's folders, a folder bob shares with her, and share links.
    struct Fixture: Sendable {
        var projects: ResourceID
        var empty: ResourceID
        var fileLink: String
        var folderLink: String
        var readWriteLink: String
        var authorize: String

        init(_ host: BrowserHost) async throws {
            let store = host.folder.store
            let projects = try await store.createContainer(named: "Projects", in: host.user.rootContainerID)
            _ = try await host.folder.importFile(data: Data("n".utf8), as: "Notes.docx", into: projects.id)
            // A template the browser editor can make a document from: its row offers "New document from template".
            _ = try await host.folder.importFile(data: Data("t".utf8), as: "Letter.dotx", into: host.user.rootContainerID)
            let empty = try await store.createContainer(named: "Archive", in: projects.id)
            let bob = try await store.createUser(name: "bob", displayName: "Bob Example", passwordHash: PasswordHash(hashing: "bob-password-1", logN: 10))
            let budget = try await host.folder.importFile(data: Data("b".utf8), as: "Budget.xlsx", into: bob.rootContainerID)
            _ = try await store.share(budget.id, kind: .file, with: host.user.id, role: .editor, now: Date())
            self.projects = projects.id
            self.empty = empty.id
            fileLink = host.backend.shareLink(user: host.user.id, item: host.report.id, isContainer: false)
            folderLink = host.backend.shareLink(user: host.user.id, item: projects.id, isContainer: true)
            readWriteLink = host.backend.shareLink(user: host.user.id, item: host.report.id, isContainer: false, readWrite: true)
            authorize = "/oauth2/authorize?client_id=\(BrowserHost.officeClientID)&redirect_uri=https%3A%2F%2Flocalhost&response_type=code&state=s1"
        }
    }

    /// The browser going from page to page, signed in as alice or not.
    final class Tour: @unchecked Sendable {
        let host: BrowserHost
        let driver: WebDriverClient
        let browser: Browser
        let fixture: Fixture
        private var signedIn = false

        init(host: BrowserHost, driver: WebDriverClient, fixture: Fixture) {
            self.host = host
            self.driver = driver
            self.browser = Browser(driver: driver)
            self.fixture = fixture
        }

        /// Opens `address` (a path of the host or a full URL) and waits until `selector` is on the page.
        func open(_ address: String, showing selector: String) async throws {
            try await driver.navigate(address.hasPrefix("http") ? address : host.baseURL + address)
            try await wait(for: selector)
        }

        func wait(for selector: String) async throws {
            try await browser.waitFor(selector) { try await driver.elements(selector).count > 0 }
        }

        /// Signs alice in on the web front, or out, when she is not already.
        func ensure(signedIn wanted: Bool) async throws {
            guard wanted != signedIn else { return }
            try await open("/", showing: "form#signin, #signout")
            if try await driver.elements("#signout").isEmpty != wanted {
                signedIn = wanted
                return
            }
            if wanted {
                try await browser.signIn(password: BrowserHost.password)
                try await wait(for: "#listing")
            } else {
                try await driver.click(try await driver.element("#signout"))
                try await wait(for: "form#signin")
            }
            signedIn = wanted
        }

        /// Runs `body` while the store's folder table is gone, so pages fail as on a broken database.
        func withBrokenStore(_ body: () async throws -> Void) async throws {
            let database = try DatabaseQueue(path: host.data.appendingPathComponent("wopi.sqlite").path)
            try await database.write { try $0.execute(sql: "ALTER TABLE containers RENAME TO containers_gone") }
            let result = await Result(catching: { try await body() })
            try await database.write { try $0.execute(sql: "ALTER TABLE containers_gone RENAME TO containers") }
            try result.get()
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing closure.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
