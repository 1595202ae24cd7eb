import Foundation
import HTTPTypes
import Hummingbird

/// What the one frame of every page (`layout.mustache`) shows around the page's own content:
/// the language and title, the web front's header (brand, who is signed in, sign out), its
/// stylesheet and upload script, and the language switch.
///
/// The OAuth and share-link pages use the bare frame: a title, the base stylesheet and `<main>`.
struct PageLayout: Sendable {
    /// The `lang` of the document (BCP 47).
    var language: String
    /// The whole `<title>`.
    var title: String
    /// The favicon's address.
    var icon: String?
    /// Whether the web front's stylesheet follows the base one.
    var fileStyle = false
    /// The address of a script of this host (the upload form's).
    var script: String?
    var header: Header?
    /// Whether `<main>` carries `id="main"` (the web front's pages).
    var mainID = false
    var footer: Footer?

    /// The web front's header: the brand, linking home, and the sign-out form when signed in.
    struct Header: Sendable {
        var home: String
        var brand: String
        var signOut: SignOut?
    }

    /// The sign-out form and who is signed in.
    struct SignOut: Sendable {
        var action: String
        var csrf: String
        /// "Signed in as …", filled.
        var signedInAs: String
        var label: String
    }

    /// The language switch.
    struct Footer: Sendable {
        var label: String
        var languages: [LanguageLink]
    }

    /// One language of the switch: this page in that language.
    struct LanguageLink: Sendable {
        var href: String
        var tag: String
        var name: String
        var current: Bool
    }

    /// A bare frame: `title`, the base stylesheet, `<main>`.
    init(language: String, title: String) {
        self.language = language
        self.title = title
    }

    /// The page `template` renders `page` into, inside this frame.
    func render<Page>(_ template: String, _ page: Page) throws -> String {
        try PageTemplates.bundled.get().render(template, PageView(layout: self, page: page))
    }

    /// The rendered page as a response with the host's security headers (``HTMLPage``).
    func response<Page>(_ template: String, _ page: Page, status: HTTPResponse.Status = .ok, extraHeaders: HTTPFields = [:],
                        formsRedirectAway: Bool = false) throws -> Response {
        HTMLPage.response(try render(template, page), status: status, extraHeaders: extraHeaders, formsRedirectAway: formsRedirectAway)
    }
}

/// What a page template sees: `layout` for the frame, `page` for its own content.
struct PageView<Page> {
    var layout: PageLayout
    var page: Page
}
