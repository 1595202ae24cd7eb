import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// The server-rendered pages of `/oauth2/authorize`: sign-in, consent, and the error page shown
/// instead of redirecting when the client or redirect URI cannot be trusted (RFC 6749 §4.1.2.1).
///
/// Each page fits a phone screen (viewport meta, one column), carries every value HTML-escaped,
/// has at most one form, and keeps itself out of frames and caches.
struct SignInPage: Sendable {
    /// Which page.
    enum Kind: Sendable {
        /// The sign-in form; `error` is shown above it.
        case signIn(username: String, error: String?)
        /// The consent question for `client`, asked of `user`.
        case consent(client: String, user: String)
        /// An error without a form: the message (already localized) and an optional detail.
        case error(message: String, detail: String?)
    }

    var kind: Kind
    var language: PageLanguage
    /// The service name (`WOPIHostConfiguration.brandName`).
    var brand: String
    /// Where the form posts to.
    var action: String
    /// Hidden fields sent back unchanged: the authorization request, the CSRF token, the consent ticket.
    var hiddenFields: [(String, String)]

    /// The page as HTML.
    var html: String {
        let strings = language.strings
        let title: String
        var body = ""
        switch kind {
        case .signIn(let username, let error):
            title = strings.signInTitle
            body += "<h1>\(HTMLText.fill(strings.signInHeading, brand))</h1>\n"
            if let error { body += "<p class=\"error\" role=\"alert\">\(HTMLText.escape(error))</p>\n" }
            body += formStart(step: "signin")
            body += """
                <label for="username">\(HTMLText.escape(strings.username))</label>
                <input type="text" id="username" name="username" value="\(HTMLText.escape(username))" autocomplete="username" autocapitalize="none" autocorrect="off" spellcheck="false" required autofocus>
                <label for="password">\(HTMLText.escape(strings.password))</label>
                <input type="password" id="password" name="password" autocomplete="current-password" required>
                <button type="submit">\(HTMLText.escape(strings.signInButton))</button>
                </form>

                """
        case .consent(let client, let user):
            title = strings.consentTitle
            body += "<h1>\(HTMLText.escape(strings.consentTitle))</h1>\n"
            body += "<p>\(HTMLText.fill(strings.consentQuestion, client))</p>\n"
            body += "<p class=\"muted\">\(HTMLText.fill(strings.signedInAs, user))</p>\n"
            body += formStart(step: "consent")
            body += """
                <div class="buttons">
                <button type="submit" name="decision" value="deny" class="secondary">\(HTMLText.escape(strings.deny))</button>
                <button type="submit" name="decision" value="allow">\(HTMLText.escape(strings.allow))</button>
                </div>
                </form>

                """
        case .error(let message, let detail):
            title = strings.errorTitle
            body += "<h1>\(HTMLText.escape(strings.errorTitle))</h1>\n"
            body += "<p class=\"error\" role=\"alert\">\(HTMLText.escape(message))"
            if let detail { body += " \(HTMLText.escape(detail))" }
            body += "</p>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="\(language.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escape(title)) · \(HTMLText.escape(brand))</title>
            <style>\(HTMLPage.style)</style>
            </head>
            <body>
            <main>
            \(body)</main>
            </body>
            </html>

            """
    }

    private func formStart(step: String) -> String {
        var text = "<form method=\"post\" action=\"\(HTMLText.escape(action))\">\n"
        for (name, value) in hiddenFields + [("step", step)] {
            text += "<input type=\"hidden\" name=\"\(HTMLText.escape(name))\" value=\"\(HTMLText.escape(value))\">\n"
        }
        return text
    }

    /// The page as a response with `status`, security headers, and `extraHeaders` (a CSRF cookie).
    func response(status: HTTPResponse.Status = .ok, extraHeaders: HTTPFields = [:]) -> Response {
        HTMLPage(html: html).response(status: status, extraHeaders: extraHeaders)
    }
}
