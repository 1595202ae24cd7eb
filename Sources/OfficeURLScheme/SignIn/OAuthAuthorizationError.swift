/// The error parameters of an OAuth 2.0 authorization response (RFC 6749 §4.1.2.1), which an app
/// sends to Office instead of `code` when sign-in fails (apptoapp.rst).
public struct OAuthAuthorizationError: Sendable, Hashable, Codable {
    /// `error`: an RFC 6749 error code such as `access_denied`.
    public let code: String
    /// `error_description`: text for the developer, optional.
    public let description: String?
    /// `error_uri`: a page about the error, optional.
    public let uri: String?

    /// Creates an error answer.
    public init(code: String, description: String? = nil, uri: String? = nil) {
        self.code = code
        self.description = description
        self.uri = uri
    }

    /// `invalid_request` (RFC 6749 §4.1.2.1).
    public static let invalidRequest = "invalid_request"
    /// `unauthorized_client`.
    public static let unauthorizedClient = "unauthorized_client"
    /// `access_denied`: the user or the server refused.
    public static let accessDenied = "access_denied"
    /// `unsupported_response_type`.
    public static let unsupportedResponseType = "unsupported_response_type"
    /// `invalid_scope`.
    public static let invalidScope = "invalid_scope"
    /// `server_error`.
    public static let serverError = "server_error"
    /// `temporarily_unavailable`.
    public static let temporarilyUnavailable = "temporarily_unavailable"
}
