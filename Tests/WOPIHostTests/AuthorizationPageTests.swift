import Foundation
import HTTPTypes
import Testing
@testable import WOPIAuthorization
@testable import WOPIHost

/// The sign-in page in English, German and Simplified Chinese, chosen by `rs` or Accept-Language.
@Suite struct AuthorizationPageTests {
    struct Expectation: Sendable {
        var lang: String
        var heading: String
        var username: String
        var password: String
        var button: String
    }

    static let english = Expectation(lang: "en", heading: "Sign in to WOPIKit", username: "User name", password: "Password", button: "Sign in")
    static let german = Expectation(lang: "de", heading: "Bei WOPIKit anmelden", username: "Benutzername", password: "Kennwort", button: "Anmelden")
    static let chinese = Expectation(lang: "zh-Hans", heading: "登录到 WOPIKit", username: "用户名", password: "密码", button: "登录")

    @Test func signInPageRendersInAllThreeLanguages() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let cases: [(rs: String?, acceptLanguage: String?, expected: Expectation)] = [
                ("en-US", nil, Self.english),
                ("de-DE", nil, Self.german),
                ("deDE", "en-US", Self.german),          // rs wins over Accept-Language
                ("zh-CN", nil, Self.chinese),
                ("zh-Hans", nil, Self.chinese),
                (nil, "de-CH, en;q=0.5", Self.german),
                (nil, "fr-FR, zh-Hans-CN;q=0.8, en;q=0.5", Self.chinese),
                (nil, "en;q=0.2, de;q=0.9", Self.german),
                ("fr-FR", "fr-FR", Self.english),        // unsupported: English
                (nil, nil, Self.english),
            ]
            for (rs, acceptLanguage, expected) in cases {
                var uri = HTTPSession.officeAuthorizeURI(state: "<script>alert('x')</script>&\"")
                uri = uri.replacingOccurrences(of: "&rs=en-US", with: rs.map { "&rs=\($0)" } ?? "")
                var headers = HTTPFields()
                if let acceptLanguage { headers[.acceptLanguage] = acceptLanguage }
                let page = try await http.get(uri, headers: headers)
                let label = "rs=\(rs ?? "-") Accept-Language=\(acceptLanguage ?? "-")"
                #expect(page.status == .ok, "\(label)")
                #expect(page.body.contains("<html lang=\"\(expected.lang)\">"), "\(label)")
                #expect(page.body.contains("<h1>\(expected.heading)</h1>"), "\(label)")
                #expect(page.body.contains(">\(expected.username)</label>"), "\(label)")
                #expect(page.body.contains(">\(expected.password)</label>"), "\(label)")
                #expect(page.body.contains(">\(expected.button)</button>"), "\(label)")
                #expect(page.body.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
                #expect(page.body.contains("<input type=\"text\" id=\"username\" name=\"username\""))
                #expect(page.body.contains("<input type=\"password\" id=\"password\" name=\"password\""))
                // The state is carried back escaped, never as markup.
                #expect(!page.body.contains("<script>"))
                #expect(page.body.contains("value=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;\""))
                #expect(page.hiddenFields.contains { $0 == ("state", "<script>alert('x')</script>&\"") })
                #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(page.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test func errorAndConsentPagesAreLocalizedToo() async throws {
        let fixture = try await SignInFixture.make()
        try await fixture.serve { http in
            let error = try await http.get("/oauth2/authorize?client_id=nobody&response_type=code&rs=de-DE")
            #expect(error.status == .badRequest)
            #expect(error.body.contains("Anmeldung nicht möglich"))
            let page = try await http.get(HTTPSession.officeAuthorizeURI().replacingOccurrences(of: "rs=en-US", with: "rs=zh-CN"))
            let consent = try await http.submit(page, cookie: page.cookie, [("username", "alice"), ("password", SignInFixture.alicePassword)])
            #expect(consent.body.contains("<html lang=\"zh-Hans\">"))
            #expect(consent.body.contains(">允许</button>"))
            #expect(consent.body.contains(">拒绝</button>"))
            let wrong = try await http.submit(page, cookie: page.cookie, [("username", "alice"), ("password", "nope-nope")])
            #expect(wrong.body.contains("用户名或密码错误。"))
        }
    }

    @Test func languageChoiceFollowsCultureThenAcceptLanguage() {
        #expect(PageLanguage(culture: "enUS", acceptLanguage: "de") == .english)
        #expect(PageLanguage(culture: "zh-TW", acceptLanguage: "de-DE") == .german)
        #expect(PageLanguage(culture: nil, acceptLanguage: "zh-TW, zh-CN;q=0.5") == .simplifiedChinese)
        #expect(PageLanguage(culture: nil, acceptLanguage: "de;q=0") == .english)
        #expect(PageLanguage(culture: "", acceptLanguage: "") == .english)
    }
}
