import Foundation
import Hummingbird
import NIOCore

/// An RFC 6749 §5.2 error response: JSON `{"error": …, "error_description": …}` with 400, or 401
/// for `invalid_client` (and, from protected resources, RFC 6750 §3.1 `invalid_token`).
///
/// Descriptions name the problem but never echo a secret.
struct OAuthErrorResponse: HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    /// The RFC 6749 / RFC 6750 error code.
    var code: String
    /// Text for the developer.
    var errorDescription: String
    /// Extra headers (`WWW-Authenticate`).
    var headers: HTTPFields = [:]

    static func invalidRequest(_ description: String) -> Self { .init(status: .badRequest, code: "invalid_request", errorDescription: description) }
    static func invalidGrant(_ description: String) -> Self { .init(status: .badRequest, code: "invalid_grant", errorDescription: description) }
    static func unauthorizedClient(_ description: String) -> Self {
        .init(status: .badRequest, code: "unauthorized_client", errorDescription: description)
    }
    /// `invalid_target` (RFC 8693 §2.2.2): the `audience` or `resource` names nothing this server issues for.
    static func invalidTarget(_ description: String) -> Self { .init(status: .badRequest, code: "invalid_target", errorDescription: description) }
    /// 503 `temporarily_unavailable`: a service the grant depends on did not answer in time.
    static func temporarilyUnavailable(_ description: String) -> Self {
        var headers = HTTPFields()
        headers[.retryAfter] = "30"
        return .init(status: .serviceUnavailable, code: "temporarily_unavailable", errorDescription: description, headers: headers)
    }
    static func unsupportedGrantType(_ description: String) -> Self {
        .init(status: .badRequest, code: "unsupported_grant_type", errorDescription: description)
    }

    /// 429 `slow_down` (RFC 8628 §3.5, registered for token endpoint responses) with `Retry-After`:
    /// too many refused grants from this client and address.
    static func slowDown(retryAfter wait: TimeInterval) -> Self {
        var headers = HTTPFields()
        headers[.retryAfter] = String(Int(wait.rounded(.up)))
        return .init(status: .tooManyRequests, code: "slow_down",
                     errorDescription: "too many refused grants from this client; try again in \(Int(wait.rounded(.up))) seconds", headers: headers)
    }

    /// 401 `invalid_client`; with HTTP Basic the challenge names the scheme the client used (RFC 6749 §5.2).
    static func invalidClient(_ description: String, usedBasic: Bool) -> Self {
        var headers = HTTPFields()
        if usedBasic { headers[.wwwAuthenticate] = "Basic realm=\"oauth2\", charset=\"UTF-8\"" }
        return .init(status: .unauthorized, code: "invalid_client", errorDescription: description, headers: headers)
    }

    /// 401 `invalid_token` from a bearer-protected endpoint (RFC 6750 §3).
    static func invalidToken(_ description: String) -> Self {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
        return .init(status: .unauthorized, code: "invalid_token", errorDescription: description, headers: headers)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.pragma] = "no-cache"
        let body = try OAuthJSON.encode(["error": code, "error_description": Self.safeDescription(errorDescription)])
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// RFC 6749 §5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E.
    static func safeDescription(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" }.map(Character.init))
    }
}

/// JSON for OAuth responses: snake_case keys as RFC 6749 names them, sorted, slashes unescaped.
enum OAuthJSON {
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// A 200 JSON response that no cache may keep (RFC 6749 §5.1).
    static func response(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.pragma] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encode(value))))
    }
}
