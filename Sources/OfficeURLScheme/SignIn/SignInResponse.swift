import Foundation

/// Your app's answer to Office's app-to-app sign-in (apptoapp.rst, seed 003):
/// `ms-word-tp:code=…&tk=…&sc=…&action=…`, or the RFC 6749 §4.1.2.1 error parameters
/// (`error`, `error_description`, `error_uri`) instead of `code`.
///
/// Build it with ``SignInRequest/response(code:tokenEndpoint:sessionContext:)`` so the scheme
/// and `action` match the request. Parsing accepts `tk` encoded (`https%3A%2F%2F…`) and, as
/// older docs show it, unencoded (`http://contoso.com`).
public struct SignInResponse: Sendable, Hashable {
    /// Whether sign-in succeeded.
    public enum Result: Sendable, Hashable {
        /// Success: the authorization `code`, optional `tk` token endpoint and `sc` session context.
        case authorized(code: String, tokenEndpoint: String?, sessionContext: String?)
        /// Failure, with the RFC 6749 error parameters.
        case failed(OAuthAuthorizationError)
    }

    /// The Office return scheme, for example `ms-word-tp`.
    public let scheme: String
    /// Success or failure.
    public let result: Result
    /// `action`, returned unchanged from the request.
    public let action: String?
    /// Other parameters, in order.
    public let extraParameters: [SignInParameter]

    /// Creates a response.
    ///
    /// - Throws: ``OfficeURLError/invalidScheme(_:)`` when `scheme` breaks RFC 3986 §3.1.
    public init(scheme: String, result: Result, action: String?, extraParameters: [SignInParameter] = []) throws(OfficeURLError) {
        guard ArgumentEncoding.isValidScheme(scheme) else { throw .invalidScheme(scheme) }
        self.scheme = scheme
        self.result = result
        self.action = action
        self.extraParameters = extraParameters
    }

    /// Parses a response string; names match case-insensitively, values are percent-decoded.
    ///
    /// - Throws: ``OfficeURLError`` when neither `code` nor `error` is present, or both are.
    public init(string: String) throws(OfficeURLError) {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let (scheme, rest) = try ArgumentEncoding.splitScheme(trimmed)
        var query = try SignInQuery(parsing: rest)
        let code = query.take("code")
        let error = query.take("error")
        let result: Result
        switch (code, error) {
        case (let code?, nil):
            result = .authorized(code: code, tokenEndpoint: query.take("tk"), sessionContext: query.take("sc"))
        case (nil, let error?):
            result = .failed(OAuthAuthorizationError(code: error, description: query.take("error_description"), uri: query.take("error_uri")))
        case (nil, nil):
            throw .missingParameter("code (or error)")
        case (_?, _?):
            throw .conflictingSignInResult
        }
        try self.init(scheme: scheme, result: result, action: query.take("action"), extraParameters: query.extras)
    }

    /// Parses the `URL` Office was opened with; same rules as ``init(string:)``.
    public init(url: URL) throws(OfficeURLError) {
        try self.init(string: url.absoluteString)
    }

    /// The authorization code, when sign-in succeeded.
    public var code: String? {
        if case .authorized(let code, _, _) = result { return code }
        return nil
    }

    /// `tk`: the token endpoint override, when present.
    public var tokenEndpoint: String? {
        if case .authorized(_, let tk, _) = result { return tk }
        return nil
    }

    /// `sc`: the session context Office sends back as `X-WOPI-SessionContext`, when present.
    public var sessionContext: String? {
        if case .authorized(_, _, let sc) = result { return sc }
        return nil
    }

    /// The RFC 6749 error, when sign-in failed.
    public var error: OAuthAuthorizationError? {
        if case .failed(let error) = result { return error }
        return nil
    }

    /// The URL string with values percent-encoded: `code, tk, sc, action` or
    /// `error, error_description, error_uri, action`.
    public var string: String {
        var parameters: [(name: String, value: String?)]
        switch result {
        case .authorized(let code, let tk, let sc):
            parameters = [("code", code), ("tk", tk), ("sc", sc)]
        case .failed(let error):
            parameters = [("error", error.code), ("error_description", error.description), ("error_uri", error.uri)]
        }
        parameters.append(("action", action))
        var present = parameters.compactMap { pair in pair.value.map { (name: pair.name, value: $0) } }
        present += extraParameters.map { ($0.name, $0.value) }
        return "\(scheme):\(SignInQuery(parameters: present).encoded)"
    }

    /// The `URL` to open; every character in ``string`` is valid in a URI, so Foundation keeps it as it is.
    public var url: URL {
        guard let url = URL(string: string) else { preconditionFailure("sign-in response rejected by Foundation: \(string)") }
        return url
    }
}
