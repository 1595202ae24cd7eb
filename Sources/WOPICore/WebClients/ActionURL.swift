import Foundation

/// Turns a discovery action's `urlsrc` template into the URL a host page posts its form to.
///
/// The rules are those of Microsoft's WOPI docs, online/discovery.rst ("Action URL placeholders",
/// "Transforming the urlsrc parameter"), which Collabora Online's discovery follows too:
/// - a placeholder is written `<name=PLACEHOLDER_VALUE&>`; a placeholder the host has a value for
///   becomes `name=value&` (the value percent-encoded), every other one — including placeholders
///   the host does not know — is removed whole;
/// - `WOPI_SOURCE` must be replaced by the WOPISrc; a template without it gets `WOPISrc=…`
///   appended, as hosts did before that placeholder existed;
/// - `BUSINESS_USER` is `1` only for a business user (online/scenarios/business.rst, "business
///   user"); otherwise the placeholder is removed, and the client treats the user as a consumer.
public struct ActionURL: Sendable, Hashable {
    /// What the host knows when it opens a page; each `nil` removes its placeholder.
    public struct Values: Sendable, Hashable {
        /// `UI_LLCC`: the page language, e.g. `en-US`.
        public var uiLanguage: String?
        /// `DC_LLCC`: the data language (formats and sorting), e.g. `de-DE`.
        public var dataLanguage: String?
        /// `DISABLE_CHAT`: `true` sends `1`.
        public var disableChat = false
        /// `HOST_SESSION_ID`: an identifier of this page view, for the client's logs.
        public var hostSessionID: String?
        /// `SESSION_CONTEXT`: what the host wants back in `X-WOPI-SessionContext`.
        public var sessionContext: String?
        /// `BUSINESS_USER`: `true` sends `1`.
        public var isBusinessUser = false

        /// Values for a page in `uiLanguage` with nothing else set.
        public init(uiLanguage: String? = nil, dataLanguage: String? = nil, disableChat: Bool = false, hostSessionID: String? = nil,
                    sessionContext: String? = nil, isBusinessUser: Bool = false) {
            self.uiLanguage = uiLanguage
            self.dataLanguage = dataLanguage
            self.disableChat = disableChat
            self.hostSessionID = hostSessionID
            self.sessionContext = sessionContext
            self.isBusinessUser = isBusinessUser
        }

        func value(for placeholder: String, wopiSrc: String) -> String? {
            switch placeholder {
            case "UI_LLCC": uiLanguage
            case "DC_LLCC": dataLanguage
            case "DISABLE_CHAT": disableChat ? "1" : nil
            case "HOST_SESSION_ID": hostSessionID
            case "SESSION_CONTEXT": sessionContext
            case "BUSINESS_USER": isBusinessUser ? "1" : nil
            case "WOPI_SOURCE": wopiSrc
            default: nil
            }
        }
    }

    /// The URL, placeholders filled and WOPISrc present.
    public let string: String

    /// Fills `template` for the file at `wopiSrc`.
    public init(template: String, wopiSrc: String, values: Values) {
        var output = ""
        var hadSource = false
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "<") {
            output += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else {
                output += rest[open...]
                rest = ""
                break
            }
            let inner = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            guard let equals = inner.firstIndex(of: "=") else { continue }
            let name = inner[..<equals]
            var placeholder = inner[inner.index(after: equals)...]
            let separator = placeholder.hasSuffix("&") ? "&" : ""
            if !separator.isEmpty { placeholder = placeholder.dropLast() }
            if placeholder == "WOPI_SOURCE" { hadSource = true }
            guard let value = values.value(for: String(placeholder), wopiSrc: wopiSrc) else { continue }
            output += "\(name)=\(Self.encode(value))\(separator)"
        }
        output += rest
        if !hadSource {
            if !output.contains("?") {
                output += "?"
            } else if !output.hasSuffix("?") && !output.hasSuffix("&") {
                output += "&"
            }
            output += "WOPISrc=\(Self.encode(wopiSrc))"
        }
        // A template whose last placeholder was removed can end in a dangling separator.
        while output.hasSuffix("&") || output.hasSuffix("?") { output.removeLast() }
        string = output
    }

    /// `value` percent-encoded for a query: everything but RFC 3986's unreserved characters.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
