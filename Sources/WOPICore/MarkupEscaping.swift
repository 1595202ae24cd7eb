/// Escaping for text and attribute values in XML and HTML (XML 1.0 §2.4, HTML Living Standard
/// §13.1.2.6), so no value can add markup. `'` becomes `&#39;`, which both languages read.
public enum MarkupEscaping {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
