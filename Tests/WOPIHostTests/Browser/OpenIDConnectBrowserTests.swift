import Foundation
import Testing
import TestSupport
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIOpenIDConnect

/// Sign-in through a real OpenID Connect provider (django-oidc-provider, started by the test on 127.0.0.1) in
/// headless Chromium: the web front and the authorization page Office opens, the account a first sign-in creates,
/// and a key rotation at the provider while the host runs.
@Suite("OpenID Connect sign-in in a browser", .serialized)
struct OpenIDConnectBrowserTests {
    /// The provider, the host discovering it at start, and a browser.
    static func run(_ body: @escaping @Sendable (OpenIDProviderTestServer, OpenIDConnectClient, BrowserHost, WebDriverClient) async throws -> Void)
        async throws {
        let provider = try await OpenIDProviderTestServer.start()
        defer { provider.stop() }
        let configuration = try OpenIDConnectConfiguration(issuer: provider.issuer, clientID: provider.clientID, clientSecret: provider.clientSecret,
                                                           scopes: ["openid", "profile", "email"], name: "Test IdP")
        let client = try await OpenIDConnectClient.discover(configuration)
        try await BrowserHost.run(openIDSignIn: OpenIDSignIn(provider: client)) { host in
            try await provider.allowRedirect(host.baseURL + OpenIDSignIn.callbackPath)
            try await HeadlessChromium.run { driver in try await body(provider, client, host, driver) }
        }
    }

    /// Logs in on the provider's own page.
    static func logInAtProvider(_ provider: OpenIDProviderTestServer, driver: WebDriverClient, browser: Browser) async throws {
        try await browser.waitFor("the provider's login page") { try await driver.elements("form#idp-login").count == 1 }
        #expect(try await driver.currentURL().hasPrefix("http://127.0.0.1:\(provider.port)/accounts/login/"))
        try await driver.type(provider.user, into: try await driver.element("#id_username"))
        try await driver.type(provider.password, into: try await driver.element("#id_password"))
        try await driver.click(try await driver.element("#idp-submit"))
    }

    @Test("web front: Sign in with the provider creates the account, and a key rotation at the provider needs no restart")
    func webFront() async throws {
        try await Self.run { provider, client, host, driver in
            let browser = Browser(driver: driver)
            let pages = PageChecks(driver: driver)
            try await driver.navigate(host.baseURL + "/")
            try await browser.waitFor("the provider's button") { try await driver.elements("#signin-provider").count == 1 }
            #expect(try await driver.text(try await driver.element("#signin-provider")) == "Sign in with Test IdP")
            #expect(try await driver.elements("form#signin").count == 1, "beside the password form")
            try await pages.check("40-oidc-sign-in")
            try await driver.click(try await driver.element("#signin-provider"))
            try await Self.logInAtProvider(provider, driver: driver, browser: browser)

            try await browser.waitFor("the new account's files") { try await driver.elements("#listing").count == 1 }
            #expect(try await driver.currentURL() == host.baseURL + "/")
            let store = try #require(host.folder.store as? any WOPIStore & IdentityLinkStore)
            let user = try #require(try await store.user(issuer: provider.issuer, subject: provider.subject), "created on first sign-in")
            #expect(user.name == "jane" && user.displayName == "Jane Doe")
            #expect(try await store.users().count == 2, "next to the password user, never merged")
            try await pages.check("41-oidc-signed-in")

            // The provider rotates its key; the host, still running, reads the new one when a token names it.
            let readings = await client.keySetReadings
            let kid = try await provider.rotateKey()
            #expect(!kid.isEmpty)
            try await driver.click(try await driver.element("#signout"))
            try await browser.waitFor("the sign-in page") { try await driver.elements("#signin-provider").count == 1 }
            try await driver.click(try await driver.element("#signin-provider"))
            // Still signed in at the provider: straight back, with an id_token signed by the new key.
            try await browser.waitFor("the files again") { try await driver.elements("#listing").count == 1 }
            #expect(await client.keySetReadings == readings + 1)
            #expect(try await store.users().count == 2, "the same account")
        }
    }

    @Test("Office's authorization page: Sign in with the provider, in the page's language, then consent and Office's code")
    func officeAuthorizationPage() async throws {
        try await Self.run { provider, _, host, driver in
            let browser = Browser(driver: driver)
            let pages = PageChecks(driver: driver)
            try await driver.navigate(host.baseURL + "/oauth2/authorize?client_id=\(BrowserHost.officeClientID)"
                                      + "&redirect_uri=https%3A%2F%2Flocalhost&response_type=code&state=office-1&rs=de-DE")
            try await browser.waitFor("the provider's button") { try await driver.elements("#signin-provider").count == 1 }
            #expect(try await driver.text(try await driver.element("#signin-provider")) == "Mit Test IdP anmelden")
            try await pages.check("42-oidc-oauth-sign-in")
            try await driver.click(try await driver.element("#signin-provider"))
            try await Self.logInAtProvider(provider, driver: driver, browser: browser)
            try await browser.waitFor("the consent page") { try await driver.elements("button[value=allow]").count == 1 }
            #expect(try await driver.text(try await driver.element("button[value=allow]")) == "Erlauben")
            try await pages.check("43-oidc-oauth-consent")
            try await driver.click(try await driver.element("button[value=allow]"))
            // Office's redirect URI: nothing listens there, but the browser was sent to it with the code and the state.
            try await browser.waitFor("the redirect to Office") { try await driver.currentURL().hasPrefix("https://localhost") }
            let items = URLComponents(string: try await driver.currentURL())?.queryItems ?? []
            #expect(items.contains { $0.name == "code" && !($0.value ?? "").isEmpty })
            #expect(items.first { $0.name == "state" }?.value == "office-1")
            let store = try #require(host.folder.store as? any WOPIStore & IdentityLinkStore)
            #expect(try await store.user(issuer: provider.issuer, subject: provider.subject) != nil)
        }
    }
}
