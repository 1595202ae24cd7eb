import Foundation

/// The localized sentences of the pages, filled before a template escapes them.
enum PageText {
    /// `template` with each `%@` replaced, in order, by a value (`"Signed in as %@"`); only the
    /// template's own placeholders are replaced, never text inside a value.
    static func fill(_ template: String, _ values: String...) -> String {
        var result = ""
        var remaining = Substring(template)
        var iterator = values.makeIterator()
        while let range = remaining.range(of: "%@") {
            result += remaining[..<range.lowerBound]
            result += iterator.next() ?? ""
            remaining = remaining[range.upperBound...]
        }
        return result + remaining
    }
}
