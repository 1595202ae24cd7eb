/// The percent-encoding rules of Office URIs (Office URI Schemes §1.3, §1.5) and of the
/// app-to-app sign-in parameters, in one place so that every renderer and parser agrees.
enum ArgumentEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        default: byte - 0x61 + 10
        }
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(0x25)
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0F)])
    }

    private static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    /// Bytes that must always be escaped inside an Office URI argument: controls, space, DEL,
    /// non-ASCII, `|` (the delimiter) and the characters RFC 3986 allows nowhere (`" < > \ ^ ` { }`).
    private static func mustEscapeInArgument(_ b: UInt8) -> Bool {
        b <= 0x20 || b >= 0x7F || b == 0x7C || b == 0x22 || b == 0x3C || b == 0x3E || b == 0x5C
            || b == 0x5E || b == 0x60 || b == 0x7B || b == 0x7D
    }

    /// Encodes a text argument (`d`, `e`, `n`, `a`, `p`, `c`, `z`, unknown pairs): `:` and `/`
    /// stay, while `%`, `#`, `|`, spaces and non-ASCII are escaped, so decoding gives the value back exactly.
    static func encodeText(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for b in value.utf8 {
            if mustEscapeInArgument(b) || b == 0x25 || b == 0x23 {
                appendEscaped(b, to: &out)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Normalizes a URL argument (`u`, `s`) to its URI form: an existing `%XX` escape is kept
    /// (not encoded twice), a lone `%` becomes `%25`, and `|`, spaces and non-ASCII are escaped.
    static func normalizeURL(_ value: String) -> String {
        let bytes = Array(value.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x25 {
                if i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                    out.append(b)
                } else {
                    appendEscaped(b, to: &out)
                }
            } else if mustEscapeInArgument(b) {
                appendEscaped(b, to: &out)
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-decodes `value`. Returns `nil` when the decoded bytes are not UTF-8.
    /// A `%` that does not start an escape is kept as it is.
    static func decode(_ value: String) -> String? {
        guard value.utf8.contains(0x25) else { return value }
        let bytes = Array(value.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.append(hexValue(bytes[i + 1]) << 4 | hexValue(bytes[i + 2]))
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Decodes a text argument; an escape that does not decode to UTF-8 leaves the value as it came.
    static func decodeText(_ value: String) -> String {
        decode(value) ?? value
    }

    /// Encodes an `application/x-www-form-urlencoded`-style value for sign-in URLs and the
    /// bootstrapper's `UrlSchemes`: everything but RFC 3986 unreserved characters is escaped.
    static func encodeStrict(_ value: String) -> String {
        var out: [UInt8] = []
        for b in value.utf8 {
            if isUnreserved(b) { out.append(b) } else { appendEscaped(b, to: &out) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The fully percent-encoded form of an invoke or passback remainder, modelled on what
    /// `URL(string:)` makes of it on Foundation that encodes invalid characters (iOS 17+,
    /// swift-foundation): `|` becomes `%7C`, a `:` in the first path segment `%3A`, and characters
    /// invalid in the path, query or fragment are escaped. Every `%` becomes `%25`, so decoding
    /// the whole string once restores the raw form exactly. Foundation does the same to every
    /// part it must change, but keeps a query or fragment that holds no invalid character as it
    /// is, escapes included, so an escaped `%7C` there would read as a delimiter. Measured on this machine; the tests compare both.
    static func foundationEncodedRemainder(_ remainder: String) -> String {
        enum Part { case firstSegment, path, query, fragment }
        var part = Part.firstSegment
        var out: [UInt8] = []
        for b in remainder.utf8 {
            switch b {
            case 0x2F where part == .firstSegment: // "/"
                part = .path
                out.append(b)
            case 0x3F where part == .firstSegment || part == .path: // "?"
                part = .query
                out.append(b)
            case 0x23 where part != .fragment: // "#"
                part = .fragment
                out.append(b)
            default:
                let pchar = isUnreserved(b) || b == 0x21 || b == 0x24 || (b >= 0x26 && b <= 0x2C) || b == 0x3B
                    || b == 0x3D || b == 0x40 || b == 0x3A || b == 0x2F
                let allowed: Bool
                switch part {
                case .firstSegment: allowed = pchar && b != 0x3A
                case .path: allowed = pchar
                case .query, .fragment: allowed = pchar || b == 0x3F
                }
                if allowed { out.append(b) } else { appendEscaped(b, to: &out) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `scheme` follows RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isValidScheme(_ scheme: String) -> Bool {
        let bytes = Array(scheme.utf8)
        guard let first = bytes.first, (first >= 0x41 && first <= 0x5A) || (first >= 0x61 && first <= 0x7A) else {
            return false
        }
        return bytes.dropFirst().allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
        }
    }

    /// Splits `scheme:rest` at the first colon, checking the scheme grammar.
    static func splitScheme(_ string: String) throws(OfficeURLError) -> (scheme: String, rest: String) {
        guard let colon = string.firstIndex(of: ":") else { throw .missingScheme(string) }
        let scheme = String(string[..<colon])
        guard isValidScheme(scheme) else {
            if scheme.isEmpty { throw .missingScheme(string) }
            throw .invalidScheme(scheme)
        }
        return (scheme, String(string[string.index(after: colon)...]))
    }

    /// The host of an absolute `http`/`https` URL, lower-cased, or `nil` when `value` is not one.
    static func httpHost(of value: String) -> String? {
        let lowered = value.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            rest = lowered.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            rest = lowered.dropFirst(7)
        } else {
            return nil
        }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // Drop a port, but keep IPv6 literals such as [::1].
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            authority = authority[..<colon]
        }
        return authority.isEmpty ? nil : String(authority)
    }
}
