import HTTPTypes
import Hummingbird

extension BlobStoreError: HTTPResponseError {
    /// 413 for a body over the limit; 503 Service Unavailable (RFC 9110 §15.6.4) while the document store cannot
    /// work, which a client retries; 500 for a body missing from the store, which retrying does not bring back.
    public var status: HTTPResponse.Status {
        switch self {
        case .tooLarge: .contentTooLarge
        case .notFound: .internalServerError
        case .unavailable: .serviceUnavailable
        }
    }

    /// The reason in `X-WOPI-ServerError` and as the plain-text body; a 503 says when to retry (`Retry-After`,
    /// RFC 9110 §10.2.3). A missing body is named as such, never by its key.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        let message: String
        switch self {
        case .tooLarge: message = description
        case .notFound: message = "the document's body is missing from the document store"
        case .unavailable(let reason):
            headers[.retryAfter] = String(StoreUnavailable.retryAfterSeconds)
            message = "the document store is unavailable: \(reason)"
        }
        return try WOPIError(status, message, headers: headers).response(from: request, context: context)
    }
}
