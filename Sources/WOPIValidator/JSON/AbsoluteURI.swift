/// The absolute-URI test Microsoft's runner applies (`Uri.TryCreate(value, UriKind.Absolute)`), reduced to
/// RFC 3986 §4.3: a scheme, a colon and something after it, with no spaces or control characters.
enum AbsoluteURI {
    static func isAbsolute(_ s: String) -> Bool {
        guard let colon = s.firstIndex(of: ":") else { return false }
        let scheme = s[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        let schemeOK = scheme.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == ".")
        }
        let rest = s[s.index(after: colon)...]
        guard schemeOK, !rest.isEmpty else { return false }
        if rest.hasPrefix("//") {
            // Hierarchical URIs need a host, as .NET requires for http(s).
            let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if authority.isEmpty && scheme.lowercased() != "file" { return false }
        }
        return !s.unicodeScalars.contains { $0.value < 0x21 || $0 == "\u{7F}" }
    }
}
