/// Something Office may not handle although the URI is well formed.
///
/// Warnings are returned by ``OfficeInvokeURI/warnings`` instead of being thrown, because Office
/// documents these limits (Office URI Schemes §1.7) without always enforcing them.
public enum OfficeURLWarning: Sendable, Hashable, CustomStringConvertible {
    /// A document URL or save location is longer than the app's limit (256 characters, Excel 216).
    case urlTooLong(descriptor: String, length: Int, limit: Int, app: OfficeApp)

    /// One line that names the limit and the value's length.
    public var description: String {
        switch self {
        case .urlTooLong(let descriptor, let length, let limit, let app):
            "the '|\(descriptor)|' URL is \(length) characters long; \(app.displayName) accepts at most \(limit)"
        }
    }
}
