import Foundation
import NIOConcurrencyHelpers

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
    // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
    private let learnt = NIOLockedValueBox<(user: String?, file: String?)>((nil, nil))

    init(requestID: String) { self.requestID = requestID }

    /// The authorized user's sign-in name.
    var user: String? {
        get { learnt.withLockedValue { $0.user } }
        set { learnt.withLockedValue { $0.user = newValue } }
    }

    /// The file or container the request is about.
    var file: String? {
        get { learnt.withLockedValue { $0.file } }
        set { learnt.withLockedValue { $0.file = newValue } }
    }
}
