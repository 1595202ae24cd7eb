import Foundation

/// The user-facing sentences of the library in English, German and Simplified Chinese, the
/// languages the Office for iOS integration guide is published in (seeds 000, 002, 004).
///
/// The table is `Resources/Localizable.json`, loaded through `Bundle.module` by the library itself
/// so it works the same on iOS and Linux, whatever the app's own localizations are.
public enum LocalizedStrings {
    /// A sentence or label the library shows.
    public enum Key: String, Sendable, CaseIterable {
        /// "%@ is not installed…": offered with the App Store product.
        case installPrompt
        /// "This version of %@ cannot open…": the app lacks WOPI support.
        case updatePrompt
        /// "Could not open the document in %@.".
        case couldNotOpen
        /// The install button's label.
        case installButton
        /// The cancel button's label.
        case cancelButton
    }

    /// The languages the table provides.
    public static let supportedLanguages = ["en", "de", "zh-Hans"]

    /// The whole table, language to key to format; empty if the resource is missing.
    public static let table: [String: [String: String]] = {
        guard let url = Bundle.module.url(forResource: "Localizable", withExtension: "json"),
              let data = try? Data(contentsOf: url),
              let table = try? JSONDecoder().decode([String: [String: String]].self, from: data)
        else { return [:] }
        return table
    }()

    /// The language of the table that serves `identifier`: `de-DE` → `de`, `zh-Hans-CN` or
    /// `zh-CN` → `zh-Hans`, anything else → `en`.
    public static func language(for identifier: String) -> String {
        let lowered = identifier.lowercased().replacingOccurrences(of: "_", with: "-")
        if lowered.hasPrefix("zh") { return "zh-Hans" }
        if lowered == "de" || lowered.hasPrefix("de-") { return "de" }
        return "en"
    }

    /// The sentence for `key` in `language`, with `%@` replaced by `arguments` in order.
    /// Falls back to English, then to the key's name, so it never returns nothing.
    public static func string(_ key: Key, language: String, _ arguments: String...) -> String {
        let format = table[self.language(for: language)]?[key.rawValue] ?? table["en"]?[key.rawValue] ?? key.rawValue
        var result = ""
        var remaining = arguments[...]
        var rest = Substring(format)
        while let range = rest.range(of: "%@") {
            result += rest[..<range.lowerBound]
            result += remaining.popFirst() ?? ""
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
