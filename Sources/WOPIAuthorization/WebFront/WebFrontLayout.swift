import Foundation
import HTTPTypes
import Hummingbird

/// The frame of every web-front page: the header (brand, who is signed in, sign out), the page's
/// own content in `<main>`, and the language switch (``PageLayout``, `layout.mustache`).
///
/// Pages are plain HTML that works without JavaScript; only the upload form loads a script of the
/// host's own (`/assets/upload.js`) for its progress bar. No asset comes from elsewhere.
struct WebFrontLayout: Sendable {
    var language: PageLanguage
    var brand: String
    /// The path prefix of the public URL (`""` or `/prefix`).
    var basePath: String
    /// The signed-in session and the user's display name; `nil` on the sign-in page.
    var signedIn: (session: WebSession, displayName: String)?
    /// The path the language links point at (the page's own GET address).
    var pagePath: String

    /// The frame of a page titled `title`; `script` adds the upload script.
    func frame(title: String, script: Bool = false) -> PageLayout {
        let strings = language.webFront
        var layout = PageLayout(language: language.rawValue, title: "\(title) · \(brand)")
        layout.icon = basePath + "/assets/icon.svg"
        layout.fileStyle = true
        layout.script = script ? basePath + "/assets/upload.js" : nil
        layout.header = PageLayout.Header(home: basePath + "/", brand: brand, signOut: signedIn.map { signedIn in
            PageLayout.SignOut(action: basePath + "/signout", csrf: signedIn.session.csrf,
                               signedInAs: PageText.fill(strings.signedInAs, signedIn.displayName), label: strings.signOut)
        })
        layout.mainID = true
        layout.footer = PageLayout.Footer(label: strings.language, languages: PageLanguage.allCases.map { other in
            PageLayout.LanguageLink(href: "\(pagePath)?lang=\(other.rawValue)", tag: other.rawValue, name: other.nativeName, current: other == language)
        })
        return layout
    }

    /// `page` rendered by `template` in this frame, as a response with the host's security headers.
    func response<Page>(_ template: String, _ page: Page, title: String, script: Bool = false, status: HTTPResponse.Status = .ok,
                        extraHeaders: HTTPFields = [:]) throws -> Response {
        try frame(title: title, script: script).response(template, page, status: status, extraHeaders: extraHeaders)
    }
}

/// A page with one message and, on the web front, a link home (`message.mustache`).
struct MessagePage: Sendable {
    var heading: String
    var message: String
    var home: Link?

    /// A link with its text.
    struct Link: Sendable {
        var href: String
        var label: String
    }
}
