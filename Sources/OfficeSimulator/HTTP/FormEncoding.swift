import Foundation

/// `application/x-www-form-urlencoded` bodies and query strings (WHATWG URL §5, the encoding
/// OAuth 2.0 uses for its requests, RFC 6749 Appendix B).
enum FormEncoding {
    /// The bytes left as they are; everything else becomes `%XX`, space becomes `+`.
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._".utf8)

    /// Encodes one name or value.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == 0x20 {
                out += "+"
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Encodes pairs as `a=1&b=2`, in order.
    static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }

    /// Decodes `a=1&b=2` (a query or a form body): `+` is a space, `%XX` a byte; malformed escapes stay as they are.
    static func decode(_ text: some StringProtocol) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeComponent(parts[0])
            let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            return (name, value)
        }
    }

    private static func decodeComponent(_ text: some StringProtocol) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// `url` with `pairs` appended to its query.
    static func appending(_ pairs: [(name: String, value: String)], to url: URL) -> URL? {
        guard !pairs.isEmpty else { return url }
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        return URL(string: text + separator + encode(pairs) + fragment)
    }
}
