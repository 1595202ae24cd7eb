import Foundation
import WOPICore

/// HTML escaping for text and attribute values (HTML Living Standard §13.1.2.6, §13.5): every
/// value a page shows or carries goes through it, so no input can add markup.
enum HTMLText {
    static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }

    /// `template` with each `%@` replaced, in order, by an escaped value; the template itself is trusted text.
    static func fill(_ template: String, _ values: String...) -> String {
        var result = ""
        var remaining = Substring(escape(template))
        var iterator = values.makeIterator()
        while let range = remaining.range(of: "%@") {
            result += remaining[..<range.lowerBound]
            result += escape(iterator.next() ?? "")
            remaining = remaining[range.upperBound...]
        }
        return result + remaining
    }
}
