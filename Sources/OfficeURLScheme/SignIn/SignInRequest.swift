import Foundation

/// The URL Office for iOS opens to ask your app to sign the user in (app-to-app sign-in,
/// apptoapp.rst and seed 003):
/// `contoso:client_id=…&response_type=code&scope=wopi&rs=enUS&build=16.1.1234&platform=iOS&app=word&action=…`.
///
/// It carries the parameters of an OAuth 2.0 authorization request (RFC 6749 §4.1.1) without
/// `redirect_uri`, plus `app` and `action`. Answer it with ``response(code:tokenEndpoint:sessionContext:)``
/// or ``errorResponse(_:)``, which address the right Office app and return `action` unchanged.
///
/// ```swift
/// let request = try SignInRequest(url: url)
/// let answer = try request.response(code: code, sessionContext: "xyz")
/// await UIApplication.shared.open(answer.url)   // ms-word-tp:code=…&sc=xyz&action=…
/// ```
public struct SignInRequest: Sendable, Hashable {
    /// Your app's scheme Office opened, as it arrived (for example `Contoso`).
    public let scheme: String
    /// `client_id`: the client ID Office was registered with.
    public let clientID: String
    /// `response_type`: `code` for Office.
    public let responseType: String
    /// `scope`, for example `wopi`.
    public let scope: String?
    /// `rs`: the UI culture, for example `enUS` or `en-US`.
    public let culture: String?
    /// `build`: the Office build, for example `16.1.1234`.
    public let build: String?
    /// `platform`: `iOS`.
    public let platform: String?
    /// `app`: the Office app asking, `word`, `excel`, `powerpoint` (or `officemobile`).
    public let officeApp: String?
    /// `action`: an opaque string to return unchanged.
    public let action: String?
    /// Other parameters, in order.
    public let extraParameters: [SignInParameter]

    /// Creates a request, as Office (or a simulator of it) builds one.
    ///
    /// - Throws: ``OfficeURLError/invalidScheme(_:)`` when `scheme` breaks RFC 3986 §3.1.
    public init(
        scheme: String,
        clientID: String,
        responseType: String = "code",
        scope: String? = nil,
        culture: String? = nil,
        build: String? = nil,
        platform: String? = "iOS",
        officeApp: String? = nil,
        action: String? = nil,
        extraParameters: [SignInParameter] = []
    ) throws(OfficeURLError) {
        guard ArgumentEncoding.isValidScheme(scheme) else { throw .invalidScheme(scheme) }
        self.scheme = scheme
        self.clientID = clientID
        self.responseType = responseType
        self.scope = scope
        self.culture = culture
        self.build = build
        self.platform = platform
        self.officeApp = officeApp
        self.action = action
        self.extraParameters = extraParameters
    }

    /// Parses the URL string Office opened; parameter names match case-insensitively and values
    /// are percent-decoded.
    ///
    /// - Throws: ``OfficeURLError`` naming the problem, for example a missing `client_id`.
    public init(string: String) throws(OfficeURLError) {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let (scheme, rest) = try ArgumentEncoding.splitScheme(trimmed)
        var query = try SignInQuery(parsing: rest)
        guard let clientID = query.take("client_id") else { throw .missingParameter("client_id") }
        guard let responseType = query.take("response_type") else { throw .missingParameter("response_type") }
        try self.init(
            scheme: scheme, clientID: clientID, responseType: responseType,
            scope: query.take("scope"), culture: query.take("rs"), build: query.take("build"),
            platform: query.take("platform"), officeApp: query.take("app"), action: query.take("action"),
            extraParameters: query.extras
        )
    }

    /// Parses the `URL` your app was opened with; same rules as ``init(string:)``.
    public init(url: URL) throws(OfficeURLError) {
        try self.init(string: url.absoluteString)
    }

    /// The URL string, parameters in the order of apptoapp.rst and values percent-encoded.
    public var string: String {
        var parameters: [(name: String, value: String)] = [("client_id", clientID), ("response_type", responseType)]
        let optional: [(String, String?)] = [
            ("scope", scope), ("rs", culture), ("build", build), ("platform", platform), ("app", officeApp), ("action", action),
        ]
        for (name, value) in optional { if let value { parameters.append((name, value)) } }
        parameters += extraParameters.map { ($0.name, $0.value) }
        return "\(scheme):\(SignInQuery(parameters: parameters).encoded)"
    }

    /// The `URL` to open; every character in ``string`` is valid in a URI, so Foundation keeps it as it is.
    public var url: URL {
        guard let url = URL(string: string) else { preconditionFailure("sign-in request rejected by Foundation: \(string)") }
        return url
    }

    /// The scheme to answer on: `ms-word-tp`, `ms-excel-tp`, `ms-powerpoint-tp` or
    /// `ms-officemobile-tp`, from ``officeApp``; `nil` when the app is unknown.
    public var returnScheme: String? {
        guard let officeApp else { return nil }
        if officeApp.lowercased() == "officemobile" { return OfficeApp.officeMobileSignInReturnScheme }
        return OfficeApp(signInName: officeApp)?.signInReturnScheme
    }

    /// The answer after a successful sign-in: `<app>-tp:code=…[&tk=…][&sc=…]&action=<same action>`.
    ///
    /// - Parameters:
    ///   - code: The OAuth authorization code.
    ///   - tokenEndpoint: `tk`, a token endpoint that overrides the bootstrapper's `tokenIssuance_uri`.
    ///   - sessionContext: `sc`, which Office sends back as `X-WOPI-SessionContext`.
    /// - Throws: ``OfficeURLError/unknownSignInApp(_:)`` when ``officeApp`` names no Office app.
    public func response(code: String, tokenEndpoint: String? = nil, sessionContext: String? = nil) throws(OfficeURLError) -> SignInResponse {
        guard let returnScheme else { throw .unknownSignInApp(officeApp) }
        return try SignInResponse(
            scheme: returnScheme,
            result: .authorized(code: code, tokenEndpoint: tokenEndpoint, sessionContext: sessionContext),
            action: action
        )
    }

    /// The answer after a failed sign-in, with the RFC 6749 §4.1.2.1 error parameters instead of `code`.
    ///
    /// - Throws: ``OfficeURLError/unknownSignInApp(_:)`` when ``officeApp`` names no Office app.
    public func errorResponse(_ error: OAuthAuthorizationError) throws(OfficeURLError) -> SignInResponse {
        guard let returnScheme else { throw .unknownSignInApp(officeApp) }
        return try SignInResponse(scheme: returnScheme, result: .failed(error), action: action)
    }
}
