import Foundation
import Synchronization

/// What the host has learnt about the request in progress — its id, its user, its file — so that
/// audit events raised deep in a route carry them without threading them through every call.
///
/// ``OperationsMiddleware`` binds one per request as a task-local; ``WOPIBackend`` fills in the
/// user and file once the access token is checked.
final class RequestScope: Sendable {
    /// The scope of the request this task serves, if any.
    @TaskLocal static var current: RequestScope?

    /// Hummingbird's request id.
    let requestID: String
    private let learnt = Mutex<(user: String?, file: String?)>((nil, nil))

    init(requestID: String) { self.requestID = requestID }

    /// The authorized user's sign-in name.
    var user: String? {
        get { learnt.withLock { $0.user } }
        set { learnt.withLock { $0.user = newValue } }
    }

    /// The file or container the request is about.
    var file: String? {
        get { learnt.withLock { $0.file } }
        set { learnt.withLock { $0.file = newValue } }
    }
}
