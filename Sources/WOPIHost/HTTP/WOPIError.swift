import HTTPTypes
import Hummingbird
import NIOCore
import WOPICore

/// A refusal with the status code and headers the WOPI protocol names for it.
///
/// The body is a one-line plain-text reason, and the same reason goes into `X-WOPI-ServerError`
/// so that a client's logs say what went wrong. Reasons never contain tokens or other secrets.
public struct WOPIError: HTTPResponseError, Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// Extra response headers (`X-WOPI-Lock` for 409, and so on).
    public var headers: HTTPFields
    /// The reason, for people and logs.
    public var message: String

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// 400: the request is malformed.
    public static func badRequest(_ message: String) -> WOPIError { .init(.badRequest, message) }
    /// 401: the access token is missing, invalid, expired, or for another resource.
    public static func unauthorized(_ message: String) -> WOPIError { .init(.unauthorized, message) }
    /// 404: no such resource, or the user may not see it.
    public static func notFound(_ message: String = "resource not found") -> WOPIError { .init(.notFound, message) }
    /// 501: the operation is not supported.
    public static func notImplemented(_ message: String) -> WOPIError { .init(.notImplemented, message) }

    /// 409 with the current lock (`""` when unlocked), as every WOPI lock refusal must carry it.
    public static func lockConflict(currentLock: String, reason: String) -> WOPIError {
        var headers = HTTPFields()
        headers[.wopiLock] = currentLock
        headers[.wopiLockFailureReason] = reason
        return .init(.conflict, reason, headers: headers)
    }

    /// The error as a plain-text response with its status and headers; the message also goes into `X-WOPI-ServerError` when it is printable ASCII.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.wopiServerError] = message.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) ? message : "request refused"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

extension WOPIError {
    /// Maps a storage error to its protocol status.
    init(_ error: WOPIStoreError) {
        switch error {
        case .notFound: self = .notFound()
        case .nameTaken(let name): self.init(.conflict, "the name '\(name)' is already taken")
        case .lockConflict(let current, let reason): self = .lockConflict(currentLock: current, reason: reason)
        case .notEmpty: self.init(.conflict, "the container is not empty")
        case .notAllowed(let reason): self.init(.badRequest, reason)
        case .changedInStorage: self.init(.conflict, error.description)
        }
    }
}
