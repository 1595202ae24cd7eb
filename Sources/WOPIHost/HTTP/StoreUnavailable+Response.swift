import HTTPTypes
import Hummingbird
import NIOCore

extension StoreUnavailable: HTTPResponseError {
    /// How long a client should wait before it retries, in seconds (`Retry-After`, RFC 9110 §10.2.3).
    static let retryAfterSeconds = 2

    /// 503 Service Unavailable (RFC 9110 §15.6.4).
    public var status: HTTPResponse.Status { .serviceUnavailable }

    /// `503` with `Retry-After` and the reason in `X-WOPI-ServerError` and as the plain-text body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.retryAfter] = String(Self.retryAfterSeconds)
        let error = WOPIError(.serviceUnavailable, description, headers: headers)
        return try error.response(from: request, context: context)
    }
}
