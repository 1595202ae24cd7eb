/// Splits HTML into start tags, end tags and text: the little a person's eye needs to find a form
/// and its controls. Comments, `<script>` and `<style>` are skipped; attribute values may be double-,
/// single- or unquoted (HTML Living Standard §13.1.2.3) and are unescaped.
struct HTMLTokenizer {
    /// One piece of the page.
    enum Token: Equatable {
        /// `<name attr=…>`; names are lower-cased, attributes in order.
        case start(name: String, attributes: [(name: String, value: String)])
        /// `</name>`.
        case end(name: String)
        /// Text between tags, unescaped.
        case text(String)

        static func == (lhs: Token, rhs: Token) -> Bool {
            switch (lhs, rhs) {
            case let (.start(a, x), .start(b, y)): a == b && x.map(\.name) == y.map(\.name) && x.map(\.value) == y.map(\.value)
            case let (.end(a), .end(b)): a == b
            case let (.text(a), .text(b)): a == b
            default: false
            }
        }
    }

    /// The tokens of `html`, in document order.
    static func tokens(of html: String) -> [Token] {
        let s = Array(html.unicodeScalars)
        var tokens: [Token] = []
        var text = ""
        var i = 0
        func flushText() {
            if !text.isEmpty { tokens.append(.text(HTMLEntities.unescape(text))) }
            text = ""
        }
        func startsWith(_ literal: String, at position: Int) -> Bool {
            let scalars = Array(literal.unicodeScalars)
            guard position + scalars.count <= s.count else { return false }
            for (offset, scalar) in scalars.enumerated() where lowercased(s[position + offset]) != scalar { return false }
            return true
        }
        func skip(past literal: String, from position: Int) -> Int {
            var j = position
            while j < s.count, !startsWith(literal, at: j) { j += 1 }
            return min(s.count, j + literal.unicodeScalars.count)
        }
        while i < s.count {
            guard s[i] == "<", i + 1 < s.count else {
                text.unicodeScalars.append(s[i])
                i += 1
                continue
            }
            if startsWith("<!--", at: i) {
                flushText()
                i = skip(past: "-->", from: i + 4)
                continue
            }
            if s[i + 1] == "!" || s[i + 1] == "?" { // doctype, processing instruction
                flushText()
                i = skip(past: ">", from: i + 1)
                continue
            }
            let isEnd = s[i + 1] == "/"
            var j = i + (isEnd ? 2 : 1)
            guard j < s.count, isLetter(s[j]) else {
                text.unicodeScalars.append(s[i])
                i += 1
                continue
            }
            flushText()
            var name = ""
            while j < s.count, !isSpace(s[j]), s[j] != ">", s[j] != "/" {
                name.unicodeScalars.append(lowercased(s[j]))
                j += 1
            }
            var attributes: [(name: String, value: String)] = []
            while j < s.count, s[j] != ">" {
                if isSpace(s[j]) || s[j] == "/" { j += 1; continue }
                var attribute = ""
                while j < s.count, !isSpace(s[j]), s[j] != "=", s[j] != ">", !(s[j] == "/" && j + 1 < s.count && s[j + 1] == ">") {
                    attribute.unicodeScalars.append(lowercased(s[j]))
                    j += 1
                }
                while j < s.count, isSpace(s[j]) { j += 1 }
                var value = ""
                if j < s.count, s[j] == "=" {
                    j += 1
                    while j < s.count, isSpace(s[j]) { j += 1 }
                    if j < s.count, s[j] == "\"" || s[j] == "'" {
                        let quote = s[j]
                        j += 1
                        while j < s.count, s[j] != quote { value.unicodeScalars.append(s[j]); j += 1 }
                        j += 1
                    } else {
                        while j < s.count, !isSpace(s[j]), s[j] != ">" { value.unicodeScalars.append(s[j]); j += 1 }
                    }
                }
                if !attribute.isEmpty { attributes.append((attribute, HTMLEntities.unescape(value))) }
            }
            i = j + 1
            if isEnd {
                tokens.append(.end(name: name))
            } else {
                tokens.append(.start(name: name, attributes: attributes))
                // Raw-text elements: their content is not markup.
                if name == "script" || name == "style" {
                    i = skip(past: "</\(name)", from: i)
                    i = skip(past: ">", from: i)
                    tokens.append(.end(name: name))
                }
            }
        }
        flushText()
        return tokens
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    private static func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
    }
}
