import Foundation

/// Any of the URLs exchanged between a storage app and Office for iOS, recognised from its text.
///
/// Use it where one entry point receives every URL, such as `scene(_:openURLContexts:)`:
///
/// ```swift
/// switch try OfficeURLMessage(url: url) {
/// case .passback(let back): …
/// case .signInRequest(let request): …
/// default: break
/// }
/// ```
public enum OfficeURLMessage: Sendable, Hashable {
    /// An Office app scheme (`ms-word:…`): a request to open a document.
    case invoke(OfficeInvokeURI)
    /// `<your scheme>:ofe|u|…`: Office returning the user to your app.
    case passback(OfficePassback)
    /// `<your scheme>:client_id=…`: Office asking your app to sign the user in.
    case signInRequest(SignInRequest)
    /// `ms-word-tp:code=…` (or `error=…`): your app's sign-in answer to Office.
    case signInResponse(SignInResponse)

    /// Recognises and parses `string`, raw or fully percent-encoded.
    ///
    /// An Office app scheme is an invoke URI; a `-tp` return scheme, or `code`/`error`
    /// parameters, a sign-in response; `client_id` parameters a sign-in request; a command
    /// followed by `|` (or `%7C`) a passback.
    ///
    /// - Throws: the parse error of the recognised kind, or ``OfficeURLError/unrecognizedURL(_:)``.
    public init(string: String) throws(OfficeURLError) {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let (scheme, rest) = try ArgumentEncoding.splitScheme(trimmed)
        if OfficeApp(scheme: scheme) != nil {
            self = .invoke(try OfficeInvokeURI(string: trimmed))
            return
        }
        if OfficeApp.allSignInReturnSchemes.contains(scheme.lowercased()) {
            self = .signInResponse(try SignInResponse(string: trimmed))
            return
        }
        let lowered = rest.lowercased()
        if OfficeCommand.allCases.contains(where: { lowered.hasPrefix("\($0.rawValue)|") || lowered.hasPrefix("\($0.rawValue)%7c") }) {
            self = .passback(try OfficePassback(string: trimmed))
            return
        }
        if SignInQuery.looksLike(rest, containing: ["client_id", "response_type"]) {
            self = .signInRequest(try SignInRequest(string: trimmed))
            return
        }
        if SignInQuery.looksLike(rest, containing: ["code", "error"]) {
            self = .signInResponse(try SignInResponse(string: trimmed))
            return
        }
        throw .unrecognizedURL(trimmed)
    }

    /// Recognises and parses a `URL`; same rules as ``init(string:)``.
    public init(url: URL) throws(OfficeURLError) {
        try self.init(string: url.absoluteString)
    }
}
