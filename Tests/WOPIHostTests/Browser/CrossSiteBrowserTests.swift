import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOHTTP1
import TestSupport
import Testing
import WOPICore
@testable import WOPIHost

/// Forged forms as a browser really sends them: an attacker's page on another site or another origin posts
/// to the host, and Chromium adds what it adds (`Origin`, `Sec-Fetch-Site`, the cookies `SameSite` lets
/// through, cookies a sibling origin planted).
@Suite("Cross-site forms in a browser", .serialized)
struct CrossSiteBrowserTests {
    /// The cookie that carries the signed pre-sign-in token.
    static let signInCookie = "wopi_web_csrf"

    @Test("a sign-out form on another site neither ends the session nor clears the cookie")
    func crossSiteSignOut() async throws {
        try await BrowserHost.run { host in
            try await HeadlessChromium.run { driver in
                let browser = Browser(driver: driver)
                try await browser.signInFromFrontPage(of: host)
                let session = try #require(try await driver.cookie("wopi_session"))

                // `localhost` is another site than `127.0.0.1`: the browser says `Sec-Fetch-Site: cross-site`.
                let page = AttackerPage.autoSubmit(action: host.baseURL + "/signout", fields: [("csrf", "guessed")])
                try await AttackerPage.serve(page) { port in
                    try await driver.navigate("http://localhost:\(port)/")
                    try await browser.waitFor("the host's answer to the forged form") {
                        try await driver.currentURL().hasPrefix(host.baseURL)
                    }
                }
                #expect(try await driver.cookie("wopi_session") == session, "the forged sign-out cleared the cookie")
                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the page after the attack") { try await driver.elements("#listing, form#signin").count == 1 }
                #expect(try await driver.elements("#listing").count == 1, "the forged sign-out ended the session")
            }
        }
    }

    @Test("a sibling origin that plants a valid pre-sign-in cookie cannot sign the victim in to the attacker's account")
    func plantedCookieSignIn() async throws {
        try await BrowserHost.run { host in
            let mallory = "mallory", password = "mallory-password-1"
            _ = try await host.folder.store.createUser(name: mallory, displayName: "Mallory",
                                                       passwordHash: PasswordHash(hashing: password, logN: 10))
            // The attacker fetches the sign-in page with their own client and keeps the token the host signed.
            let token = try await Self.signInToken(host)
            try await HeadlessChromium.run { driver in
                let browser = Browser(driver: driver)
                // Cookies do not keep ports apart: a page on another port of 127.0.0.1 (another origin, the
                // same site) can set the host's cookie, then post the matching form.
                let page = AttackerPage.autoSubmit(action: host.baseURL + "/signin",
                                                   fields: [("csrf", token), ("username", mallory), ("password", password)],
                                                   plantingCookie: "\(Self.signInCookie)=\(token); path=/")
                try await AttackerPage.serve(page) { port in
                    try await driver.navigate("http://127.0.0.1:\(port)/")
                    try await browser.waitFor("the host's answer to the forged form") {
                        try await driver.currentURL().hasPrefix(host.baseURL)
                    }
                }
                #expect(try await driver.cookie(Self.signInCookie) == token, "the cookie was planted, so the attack really ran")
                #expect(try await driver.cookie("wopi_session") == nil, "the forged sign-in started a session")
                try await driver.navigate(host.baseURL + "/")
                try await browser.waitFor("the page after the attack") { try await driver.elements("#listing, form#signin").count == 1 }
                #expect(try await driver.elements("form#signin").count == 1, "the victim is signed in to the attacker's account")
            }
        }
    }

    /// The signed pre-sign-in token the host hands a visitor of its sign-in page.
    static func signInToken(_ host: BrowserHost) async throws -> String {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(HTTPClientRequest(url: host.baseURL + "/"), timeout: .seconds(10))
            try? await http.shutdown()
        } catch {
            try? await http.shutdown()
            throw error
        }
        let prefix = Self.signInCookie + "="
        let cookie = try #require(response.headers["Set-Cookie"].first { $0.hasPrefix(prefix) })
        return String(cookie.dropFirst(prefix.count).prefix { $0 != ";" })
    }
}

/// An attacker's page on 127.0.0.1 at a port of its own: a form that submits itself as soon as it loads.
enum AttackerPage {
    static func autoSubmit(action: String, fields: [(String, String)], plantingCookie cookie: String? = nil) -> String {
        let inputs = fields.map { "<input type=\"hidden\" name=\"\(escaped($0.0))\" value=\"\(escaped($0.1))\">" }.joined()
        let plant = cookie.map { "document.cookie = \"\($0)\";" } ?? ""
        return """
            <!doctype html><html lang="en"><head><title>Win a prize</title></head><body>
            <form method="post" action="\(escaped(action))">\(inputs)</form>
            <script>\(plant) document.forms[0].submit();</script>
            </body></html>
            """
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
    }

    /// Serves `html` at `/` on a port of its own while `body` runs with that port.
    static func serve<T: Sendable>(_ html: String, _ body: @Sendable (Int) async throws -> T) async throws -> T {
        let router = Router()
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
        }
        return try await LoopbackServer.serve(router, label: "attacker-page") { base in try await body(base.port ?? 0) }
    }
}
