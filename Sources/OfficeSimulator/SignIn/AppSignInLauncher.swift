/// The storage provider's app on the simulated phone: Office opens it with a sign-in request URL
/// (`contoso:client_id=…&action=…`) and it answers with the URL it would open in Office
/// (`ms-word-tp:code=…&action=…`, apptoapp.rst).
public protocol AppSignInLauncher: Sendable {
    /// Opens the app with `requestURL` and returns the answer URL it sends back to Office.
    ///
    /// - Throws: ``AppSignInLaunchError`` when the app cannot be run or gives no answer.
    func open(_ requestURL: String) async throws(AppSignInLaunchError) -> String
}

/// Why the provider's app gave no answer.
public struct AppSignInLaunchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line naming the problem, with the app's own error output when there was some.
    public let description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }
}
