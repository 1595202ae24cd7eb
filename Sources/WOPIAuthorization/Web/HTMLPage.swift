import HTTPTypes
import Hummingbird
import NIOCore

/// A rendered page as a response, with the one set of security headers every page of the host
/// carries: HTML, no caching, no framing, no referrer, no sniffing, and a content security policy
/// that allows nothing from elsewhere (scripts, images and fetches only from this host, styles
/// only inline).
enum HTMLPage {
    /// `html` as a response with `status` and `extraHeaders` (cookies, `Retry-After`).
    ///
    /// `formsRedirectAway` is for the OAuth pages, whose forms end in a redirect to the client's
    /// redirect URI: browsers apply `form-action` to those redirects too (CSP Level 3 §6.3.1), so
    /// that one directive is left out there.
    static func response(_ html: String, status: HTTPResponse.Status = .ok, extraHeaders: HTTPFields = [:],
                         formsRedirectAway: Bool = false) -> Response {
        var headers = extraHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = formsRedirectAway ? policyForRedirectingForms : contentSecurityPolicy
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Everything from this host only; inline styles (one `<style>` per page) but no inline script.
    static let contentSecurityPolicy = policy(formAction: "form-action 'self'; ")

    /// The same policy without `form-action`.
    static let policyForRedirectingForms = policy(formAction: "")

    private static func policy(formAction: String) -> String {
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; "
            + "\(formAction)frame-ancestors 'none'; base-uri 'none'"
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
