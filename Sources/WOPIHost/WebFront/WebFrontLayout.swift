import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The frame of every web-front page: the header (brand, who is signed in, sign out), the page's
/// own content in `<main>`, and the language switch.
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

    /// A complete document with `title` around `content`; `script` adds the upload script.
    func document(title: String, content: String, script: Bool = false) -> String {
        let strings = language.webFront
        var header = "<header><a class=\"brand\" href=\"\(HTMLText.escape(basePath))/\">\(HTMLText.escape(brand))</a>"
        if let signedIn {
            header += """
                <form method="post" action="\(HTMLText.escape(basePath))/signout" class="inline">\
                <input type="hidden" name="csrf" value="\(HTMLText.escape(signedIn.session.csrf))">\
                <span class="muted">\(HTMLText.fill(strings.signedInAs, signedIn.displayName))</span> \
                <button type="submit" class="link" id="signout">\(HTMLText.escape(strings.signOut))</button></form>
                """
        }
        header += "</header>"
        let switcher = PageLanguage.allCases.map { other in
            let current = other == language ? " aria-current=\"true\"" : ""
            return "<a href=\"\(HTMLText.escape(pagePath))?lang=\(other.rawValue)\" lang=\"\(other.rawValue)\" hreflang=\"\(other.rawValue)\"\(current)>\(HTMLText.escape(other.nativeName))</a>"
        }.joined(separator: " ")
        let scriptTag = script ? "<script src=\"\(HTMLText.escape(basePath))/assets/upload.js\" defer></script>" : ""
        return """
            <!doctype html><html lang="\(language.rawValue)"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1"><title>\(HTMLText.escape(title)) · \(HTMLText.escape(brand))</title>\
            <link rel="icon" href="\(HTMLText.escape(basePath))/assets/icon.svg" type="image/svg+xml">\
            <style>\(HTMLPage.style)\(Self.style)</style>\(scriptTag)</head><body>\(header)<main id="main">\(content)</main>\
            <footer><nav aria-label="\(HTMLText.escape(strings.language))">\(switcher)</nav></footer></body></html>
            """
    }

    /// The page as a response: HTML, no caching, no framing, scripts only from this host.
    func response(title: String, content: String, script: Bool = false, status: HTTPResponse.Status = .ok,
                  extraHeaders: HTTPFields = [:]) -> Response {
        var headers = extraHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers,
                        body: .init(byteBuffer: ByteBuffer(string: document(title: title, content: content, script: script))))
    }

    /// Everything from this host only; inline styles (one `<style>` per page) but no inline script.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Additions to ``HTMLPage/style`` for the file pages: header, breadcrumbs, file rows, actions.
    static let style = """
        header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px;padding:10px 16px;\
        background:#fff;border-bottom:1px solid #d1d1d6}header .brand{font-weight:700;color:#1c1c1e;text-decoration:none}\
        main{max-width:720px}form.inline{display:inline;margin:0}button.link{display:inline;width:auto;margin:0;padding:6px 8px;\
        background:none;color:#0a64d8;font-weight:600}a:focus-visible,button:focus-visible,input:focus-visible,summary:focus-visible{\
        outline:3px solid #0a64d8;outline-offset:2px}nav.crumbs ol{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;\
        gap:4px}nav.crumbs li{background:none;padding:0;margin:0}nav.crumbs li+li::before{content:"›";margin-right:4px;color:#6c6c70}\
        .name{font-weight:600;word-break:break-word}.meta{color:#595959;font-size:15px}.open{display:flex;flex-wrap:wrap;gap:6px 14px;\
        margin-top:8px;font-size:15px}details{margin-top:8px}summary{cursor:pointer;color:#0a64d8;padding:4px 0}details form{\
        margin-top:8px}details button,.tools button{width:auto;margin-top:8px;padding:10px 14px}button.danger{background:#b00020}\
        .tools{background:#fff;border-radius:10px;padding:12px;margin:12px 0}input[type=file]{width:100%;font-size:15px}\
        progress{width:100%;height:14px;margin-top:10px}footer{text-align:center;padding:16px}footer a{margin:0 6px;color:#0a64d8}\
        footer a[aria-current]{font-weight:700;color:#1c1c1e}.ok{color:#1b5e20;background:#e8f5e9;padding:10px 12px;border-radius:10px}\
        img.icon{vertical-align:-2px}.break{overflow-wrap:anywhere;word-break:break-all}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}\
        input[readonly]{width:100%;font-size:15px;padding:10px;border:1px solid #c7c7cc;border-radius:10px}
        """
}
