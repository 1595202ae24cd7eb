import Foundation

/// The languages the sign-in pages speak, chosen from Office's `rs` culture (oauthparams.rst)
/// or, failing that, the `Accept-Language` header (RFC 9110 §12.5.4).
public enum PageLanguage: String, Sendable, Hashable, CaseIterable {
    /// English.
    case english = "en"
    /// German.
    case german = "de"
    /// Simplified Chinese.
    case simplifiedChinese = "zh-Hans"

    /// The language for a request: `rs` first (`en-US`, `enUS`, `de-DE`, `zh-CN`, `zh-Hans`), then
    /// `Accept-Language` by quality, then English.
    public init(culture: String?, acceptLanguage: String?) {
        if let culture, let language = Self(tag: culture) {
            self = language
            return
        }
        if let acceptLanguage {
            let ranges = acceptLanguage.split(separator: ",").enumerated().compactMap { index, item -> (tag: String, q: Double, index: Int)? in
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let tag = parts.first, !tag.isEmpty else { return nil }
                var quality = 1.0
                for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                    quality = Double(parameter.dropFirst(2)) ?? 0
                }
                return (tag, quality, index)
            }
            let ordered = ranges.filter { $0.q > 0 }.sorted { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }
            if let language = ordered.lazy.compactMap({ Self(tag: $0.tag) }).first {
                self = language
                return
            }
        }
        self = .english
    }

    /// The language of a BCP 47 tag or an Office culture without the hyphen (`deDE`); `nil` when unsupported.
    init?(tag: String) {
        let lowered = tag.lowercased().replacingOccurrences(of: "_", with: "-")
        if lowered.hasPrefix("en") {
            self = .english
        } else if lowered.hasPrefix("de") {
            self = .german
        } else if lowered.hasPrefix("zh") {
            // Traditional-script locales would be served the wrong script; let the next preference decide.
            let traditional = ["hant", "tw", "hk", "mo"].contains { lowered.dropFirst(2).contains($0) }
            guard !traditional else { return nil }
            self = .simplifiedChinese
        } else {
            return nil
        }
    }

    /// The text of the pages in this language.
    var strings: SignInStrings {
        switch self {
        case .english: .english
        case .german: .german
        case .simplifiedChinese: .simplifiedChinese
        }
    }
}
