import Foundation

/// The `name=value&…` pairs of a query string or an `application/x-www-form-urlencoded` body
/// (HTML Living Standard §4.10.21.7; RFC 6749 Appendix B), with names matched case-insensitively
/// because Office sends `Build=` and `Platform=` as well as `build=` (oauthparams.rst).
struct FormFields: Sendable {
    /// The pairs, decoded, in order.
    private(set) var pairs: [(name: String, value: String)] = []

    /// A problem that makes the fields unusable.
    enum Problem: Error, Sendable, Equatable {
        /// A parameter appears more than once (RFC 6749 §3.1: "MUST NOT be included more than once").
        case duplicate(String)
        /// A value is not valid percent-encoded UTF-8.
        case malformed(String)
    }

    /// Parses `text`; `+` means a space. Empty names are skipped.
    init(encoded text: String?) throws(Problem) {
        guard let text, !text.isEmpty else { return }
        var seen = Set<String>()
        for item in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = parts.first, !rawName.isEmpty else { continue }
            guard let name = Self.decode(rawName), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw .malformed(String(rawName.prefix(40)))
            }
            guard seen.insert(name.lowercased()).inserted else { throw .duplicate(name) }
            pairs.append((name, value))
        }
    }

    /// Fields built from pairs (for tests and re-encoding).
    init(_ pairs: [(String, String)]) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// The value of `name` (case-insensitive); `nil` when absent.
    subscript(_ name: String) -> String? {
        let lowered = name.lowercased()
        return pairs.first { $0.name.lowercased() == lowered }?.value
    }

    /// The value of `name`, or `nil` when absent or empty (RFC 6749 §3.1: empty means omitted).
    func nonEmpty(_ name: String) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        return value
    }

    /// `name=value&…` with every byte outside RFC 3986's unreserved set percent-encoded.
    var encoded: String {
        pairs.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&")
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func decode(_ raw: Substring) -> String? {
        String(raw).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
