import Foundation
import OfficeURLScheme
import Testing

@Suite struct LocalizationTests {
    @Test func everyKeyExistsInEveryLanguage() throws {
        #expect(!LocalizedStrings.table.isEmpty, "Localizable.json did not load from Bundle.module")
        for language in LocalizedStrings.supportedLanguages {
            let strings = try #require(LocalizedStrings.table[language], "language \(language) is missing")
            for key in LocalizedStrings.Key.allCases {
                let value = strings[key.rawValue]
                #expect(value?.isEmpty == false, "key \(key.rawValue) is missing in \(language)")
            }
            // No stray keys either: every entry is one the code uses.
            #expect(Set(strings.keys) == Set(LocalizedStrings.Key.allCases.map(\.rawValue)), "\(language) has unknown keys")
        }
        #expect(Set(LocalizedStrings.table.keys) == Set(LocalizedStrings.supportedLanguages))
    }

    @Test func formatsInEachLanguage() {
        #expect(LocalizedStrings.string(.couldNotOpen, language: "en-US", "Microsoft Word") == "Could not open the document in Microsoft Word.")
        #expect(LocalizedStrings.string(.couldNotOpen, language: "de-DE", "Microsoft Word") == "Das Dokument konnte nicht in Microsoft Word geöffnet werden.")
        #expect(LocalizedStrings.string(.couldNotOpen, language: "zh-Hans-CN", "Microsoft Word") == "无法在 Microsoft Word 中打开该文档。")
        #expect(LocalizedStrings.string(.installPrompt, language: "fr", "Microsoft Word").hasPrefix("Microsoft Word is not installed"))
        // Placeholders are filled in every language.
        for language in LocalizedStrings.supportedLanguages {
            #expect(!LocalizedStrings.string(.installPrompt, language: language, "X").contains("%@"))
        }
    }
}
