import Foundation

/// The `WWW-Authenticate` challenge a WOPI host's bootstrapper returns with 401 to an
/// unauthenticated request (Bootstrap.rst, "WWW-Authenticate response header format"):
///
/// ```
/// Bearer authorization_uri="https://contoso.com/api/oauth2/authorize",tokenIssuance_uri="https://contoso.com/api/oauth2/token",providerId="tpcontoso",UrlSchemes="%7B%22iOS%22%3A%5B%22contoso%22%5D%7D"
/// ```
///
/// `UrlSchemes` is URL-encoded JSON listing, per platform and in order, the schemes Office tries
/// for app-to-app sign-in before falling back to the web view (apptoapp.rst).
public struct BootstrapperChallenge: Sendable, Hashable {
    /// `authorization_uri`: the OAuth 2.0 authorization endpoint (RFC 6749 §3.1).
    public let authorizationURI: String
    /// `tokenIssuance_uri`: the OAuth 2.0 token endpoint (RFC 6749 §3.2).
    public let tokenIssuanceURI: String
    /// `providerId`: the host's well-known id registered with Microsoft; letters, digits and `_`.
    public let providerID: String?
    /// `UrlSchemes`, decoded: platform (`iOS`, `Android`, `UWP`) to its ordered list. `nil` when absent.
    public let urlSchemes: [String: [String]]?

    /// Creates a challenge and checks the values can be carried in the header.
    ///
    /// - Throws: ``OfficeURLError/invalidChallenge(_:)`` when a URI is not http(s) or contains
    ///   `"`, `,` or `=` (which Office's header parser splits on), or `providerId` holds anything
    ///   but `A-Z a-z 0-9 _`.
    public init(authorizationURI: String, tokenIssuanceURI: String, providerID: String? = nil, urlSchemes: [String: [String]]? = nil) throws(OfficeURLError) {
        for (name, value) in [("authorization_uri", authorizationURI), ("tokenIssuance_uri", tokenIssuanceURI)] {
            guard ArgumentEncoding.httpHost(of: value) != nil else {
                throw .invalidChallenge("\(name) '\(OfficeURLError.clip(value))' is not an http or https URL")
            }
            if let bad = value.first(where: { $0 == "\"" || $0 == "," || $0 == "=" }) {
                throw .invalidChallenge("\(name) contains '\(bad)'; percent-encode it, Office splits the header on it")
            }
        }
        // The docs allow A-Z a-z 0-9 but their own sample is `tp_contoso`, so `_` is accepted too.
        if let providerID, providerID.isEmpty || !providerID.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }) {
            throw .invalidChallenge("providerId '\(OfficeURLError.clip(providerID))' may hold only A-Z, a-z, 0-9 and _")
        }
        self.authorizationURI = authorizationURI
        self.tokenIssuanceURI = tokenIssuanceURI
        self.providerID = providerID
        self.urlSchemes = urlSchemes
    }

    /// Parses a header value. Tolerates `Bearer`, `bearer` and `Bearer:`, whitespace around
    /// parameters and `=`, parameter names in any case, and unquoted values.
    ///
    /// - Throws: ``OfficeURLError/invalidChallenge(_:)`` naming what is wrong, for example a
    ///   missing `authorization_uri` or a `UrlSchemes` that is not JSON.
    public init(headerValue: String) throws(OfficeURLError) {
        var text = Substring(headerValue.trimmingCharacters(in: .whitespacesAndNewlines))
        guard text.lowercased().hasPrefix("bearer") else {
            throw .invalidChallenge("the value does not start with 'Bearer'")
        }
        text = text.dropFirst(6)
        if text.first == ":" { text = text.dropFirst() }
        let parameters = try Self.parameters(in: text)
        func value(_ name: String) -> String? {
            parameters.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        guard let authorization = value("authorization_uri") else { throw .invalidChallenge("authorization_uri is missing") }
        guard let token = value("tokenIssuance_uri") else { throw .invalidChallenge("tokenIssuance_uri is missing") }
        var schemes: [String: [String]]?
        if let raw = value("UrlSchemes") { schemes = try Self.decodeURLSchemes(raw) }
        try self.init(authorizationURI: authorization, tokenIssuanceURI: token, providerID: value("providerId"), urlSchemes: schemes)
    }

    /// The header value, parameters in the documented order and `UrlSchemes` as URL-encoded compact JSON
    /// with platforms ordered iOS, Android, UWP, then the rest alphabetically.
    public var headerValue: String {
        var parts = [
            "authorization_uri=\"\(authorizationURI)\"",
            "tokenIssuance_uri=\"\(tokenIssuanceURI)\"",
        ]
        if let providerID { parts.append("providerId=\"\(providerID)\"") }
        if let urlSchemes { parts.append("UrlSchemes=\"\(ArgumentEncoding.encodeStrict(Self.json(urlSchemes)))\"") }
        return "Bearer " + parts.joined(separator: ",")
    }

    /// The iOS schemes Office tries, in order; empty when none are listed.
    public var iOSURLSchemes: [String] {
        urlSchemes?.first { $0.key.lowercased() == "ios" }?.value ?? []
    }

    private static func json(_ schemes: [String: [String]]) -> String {
        let preferred = ["iOS", "Android", "UWP"]
        let keys = preferred.filter { schemes[$0] != nil } + schemes.keys.filter { !preferred.contains($0) }.sorted()
        let members = keys.map { key in
            "\(quoted(key)):[\((schemes[key] ?? []).map(quoted).joined(separator: ","))]"
        }
        return "{\(members.joined(separator: ","))}"
    }

    private static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func decodeURLSchemes(_ raw: String) throws(OfficeURLError) -> [String: [String]] {
        // The docs' table shows the JSON unencoded, the sample encoded: accept both.
        let candidates = [ArgumentEncoding.decode(raw), raw].compactMap { $0 }
        for candidate in candidates {
            guard let object = try? JSONSerialization.jsonObject(with: Data(candidate.utf8)) as? [String: Any] else { continue }
            var result: [String: [String]] = [:]
            for (platform, list) in object {
                guard let strings = list as? [String] else {
                    throw .invalidChallenge("UrlSchemes entry '\(OfficeURLError.clip(platform))' is not a list of strings")
                }
                result[platform] = strings
            }
            return result
        }
        throw .invalidChallenge("UrlSchemes is not URL-encoded JSON")
    }

    /// Splits `name="value", name=value` pairs, honouring quotes and backslash escapes.
    private static func parameters(in text: Substring) throws(OfficeURLError) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var index = text.startIndex
        func skip(_ set: Set<Character>) {
            while index < text.endIndex, set.contains(text[index]) || text[index].isWhitespace { index = text.index(after: index) }
        }
        while true {
            skip([","])
            guard index < text.endIndex else { break }
            let nameStart = index
            while index < text.endIndex, text[index] != "=", text[index] != ",", !text[index].isWhitespace { index = text.index(after: index) }
            let name = String(text[nameStart..<index])
            skip([])
            guard index < text.endIndex, text[index] == "=" else {
                throw .invalidChallenge("parameter '\(OfficeURLError.clip(name))' has no '=value'")
            }
            index = text.index(after: index)
            skip([])
            var value = ""
            if index < text.endIndex, text[index] == "\"" {
                index = text.index(after: index)
                var closed = false
                while index < text.endIndex {
                    let c = text[index]
                    index = text.index(after: index)
                    if c == "\"" { closed = true; break }
                    if c == "\\", index < text.endIndex { value.append(text[index]); index = text.index(after: index); continue }
                    value.append(c)
                }
                guard closed else { throw .invalidChallenge("the value of '\(OfficeURLError.clip(name))' has no closing quote") }
            } else {
                let start = index
                while index < text.endIndex, text[index] != "," { index = text.index(after: index) }
                value = text[start..<index].trimmingCharacters(in: .whitespaces)
            }
            result.append((name, value))
        }
        return result
    }
}
