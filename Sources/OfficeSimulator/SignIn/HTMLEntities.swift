/// Character references in HTML text and attribute values (HTML Living Standard §13.5), enough for
/// what sign-in pages escape: `&amp; &lt; &gt; &quot; &apos; &#39; &#x27; &nbsp;` and every numeric form.
enum HTMLEntities {
    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
    ]

    /// `text` with its character references replaced; an unknown or malformed reference is kept as written.
    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard character == "&",
                  let semicolon = text[index...].prefix(12).firstIndex(of: ";"),
                  let replacement = replacement(for: text[text.index(after: index)..<semicolon])
            else {
                out.append(character)
                index = text.index(after: index)
                continue
            }
            out += replacement
            index = text.index(after: semicolon)
        }
        return out
    }

    private static func replacement(for reference: Substring) -> String? {
        if reference.hasPrefix("#") {
            let digits = reference.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
        return named[String(reference)]
    }
}
