import Foundation

/// What the host has learnt about the request in progress — its id, its user, its file — so that
/// audit events raised deep in a route carry them without threading them through every call.
///
/// ``OperationsMiddleware`` binds one per request as a task-local; ``WOPIBackend`` fills in the
/// user and file once the access token is checked.
final class RequestScope: @unchecked Sendable {
    /// The scope of the request this task serves, if any.
    @TaskLocal static var current: RequestScope?

    /// Hummingbird's request id.
    let requestID: String
    private let lock = NSLock()
    private var _user: String?
    private var _file: String?

    init(requestID: String) { self.requestID = requestID }

    /// The authorized user's sign-in name.
    var user: String? {
        get { lock.withLock { _user } }
        set { lock.withLock { _user = newValue } }
    }

    /// The file or container the request is about.
    var file: String? {
        get { lock.withLock { _file } }
        set { lock.withLock { _file = newValue } }
    }
}
