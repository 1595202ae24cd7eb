/// Why ``HostSignIn`` or ``HostFileList`` could not go on.
public enum HostSignInError: Error, Sendable, CustomStringConvertible {
    /// The callback scheme does not follow RFC 3986 §3.1.
    case invalidScheme(String)
    /// The server URL is not an absolute `http`/`https` URL with a host.
    case invalidServerURL(String)
    /// The PKCE verifier is not 43 to 128 unreserved characters (RFC 7636 §4.1).
    case invalidCodeVerifier
    /// The host refused, with an RFC 6749 error code such as `access_denied` and its description.
    case refused(code: String, description: String?)
    /// The callback's `state` is not the one sent, so it may not answer this sign-in (RFC 6749 §10.12).
    case stateMismatch
    /// An answer lacks a field it must have.
    case missingField(String)
    /// An answer is not a JSON object.
    case notJSON
    /// The ``SignInResponse`` could not be built, for example because the request names no Office app.
    case cannotAnswer(OfficeURLError)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .invalidScheme(let scheme): "'\(scheme)' is not a valid URL scheme (RFC 3986 §3.1)"
        case .invalidServerURL(let url): "'\(url)' is not an absolute http(s) URL"
        case .invalidCodeVerifier: "the PKCE code verifier must be 43 to 128 unreserved characters (RFC 7636 §4.1)"
        case .refused(let code, let description): "the host refused: \(code)\(description.map { " (\($0))" } ?? "")"
        case .stateMismatch: "the sign-in callback's state does not match the request"
        case .missingField(let name): "the answer has no '\(name)'"
        case .notJSON: "the answer is not a JSON object"
        case .cannotAnswer(let error): "cannot build the answer to Office: \(error)"
        }
    }
}
