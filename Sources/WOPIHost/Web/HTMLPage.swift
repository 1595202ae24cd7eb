import HTTPTypes
import Hummingbird
import NIOCore

/// A server-rendered page: one stylesheet for the whole web front, and the security headers every
/// page carries (no scripts, no framing, no referrer, no caching).
struct HTMLPage {
    /// The document, already escaped where it holds data.
    var html: String

    /// The page as a response with `status` and `extraHeaders` (a cookie, `Retry-After`).
    func response(status: HTTPResponse.Status = .ok, extraHeaders: HTTPFields = [:]) -> Response {
        var headers = extraHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A complete document around `body`, sized for a phone.
    static func document(title: String, language: String = "en", body: String) -> HTMLPage {
        HTMLPage(html: """
            <!doctype html><html lang="\(HTMLText.escape(language))"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1"><title>\(HTMLText.escape(title))</title>\
            <style>\(style)</style></head><body><main>\(body)</main></body></html>
            """)
    }

    static let style = """
        *{box-sizing:border-box}body{margin:0;font:17px/1.4 -apple-system,system-ui,"PingFang SC","Noto Sans CJK SC",sans-serif;\
        background:#f2f2f7;color:#1c1c1e}main{max-width:420px;margin:0 auto;padding:24px 16px}h1{font-size:24px;margin:8px 0 20px}\
        label{display:block;margin:14px 0 6px;font-weight:600}input[type=text],input[type=password]{width:100%;font-size:17px;\
        padding:12px;border:1px solid #c7c7cc;border-radius:10px;background:#fff}button,a.button{display:block;text-align:center;\
        text-decoration:none;width:100%;margin-top:22px;padding:14px;font-size:17px;font-weight:600;border:0;border-radius:10px;\
        background:#0a64d8;color:#fff}.buttons{display:flex;gap:12px}.buttons button{flex:1}button.secondary{background:#e5e5ea;\
        color:#1c1c1e}.error{color:#b00020;background:#fdecee;padding:10px 12px;border-radius:10px}.muted{color:#6c6c70;font-size:15px}\
        ul{padding:0;list-style:none}li{background:#fff;border-radius:10px;margin:8px 0;padding:12px}li a{color:#0a64d8}
        """
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
