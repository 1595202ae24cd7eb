/// Who launches Office, the `|a|` argument WOPI hosts send (seed 001, from_app.rst).
public enum InvocationSource: String, Sendable, Hashable, CaseIterable, Codable {
    /// `App`: a native app invokes the protocol handler.
    case app = "App"
    /// `Web`: a website invokes the protocol handler.
    case web = "Web"

    /// Reads `App` or `Web`, ignoring case.
    public init?(name: String) {
        guard let source = InvocationSource.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = source
    }
}
