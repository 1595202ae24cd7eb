import Foundation
import Testing
import WOPICore

/// Names Office for iOS accepts (issues/invalidcharacters.rst) and the sanitizer for imports.
@Suite("WOPIName")
struct WOPINameTests {
    @Test("ordinary and international names are valid", arguments: [
        "Report.docx", "Q3 budget (final).xlsx", "Résumé – 2025.docx", "日本語の資料.pptx", "🎉 party plan.docx",
        "no extension", ".profile", "a", "...", "semi;colon,comma&plus+equals=.txt", "tilde~and'quote.docx",
        "user@example.com", "a b", " leading and trailing ",
    ])
    func valid(name: String) throws {
        let value = try WOPIName(name)
        #expect(value.rawValue == name)
        #expect(value.description == name)
        #expect(WOPIName(rawValue: name) == value)
    }

    @Test("every character Office for iOS refuses is refused, and named with its offset")
    func refusedCharacters() {
        let listed = #"\/:*?"<>|#{}^[]`%"#
        #expect(WOPIName.refusedCharacters == Set(listed))
        for character in listed {
            let name = "ab\(character)c.docx"
            #expect(throws: WOPIName.ValidationError.refusedCharacter(character, offset: 2), "\(character)") {
                try WOPIName(name)
            }
            #expect(WOPIName(rawValue: name) == nil)
        }
    }

    @Test("empty, blank, reserved, control characters and separators are refused", arguments: [
        ("", WOPIName.ValidationError.empty),
        ("   ", .empty),
        ("\t", .empty),
        (".", .reservedName(".")),
        ("..", .reservedName("..")),
        ("a\u{0}b", .controlCharacter("\u{0}", offset: 1)),
        ("line\nbreak", .controlCharacter("\n", offset: 4)),
        ("x\u{7F}", .controlCharacter("\u{7F}", offset: 1)),
        ("x\u{85}", .controlCharacter("\u{85}", offset: 1)),
        ("para\u{2029}", .controlCharacter("\u{2029}", offset: 4)),
        ("tab\tinside", .controlCharacter("\t", offset: 3)),
        ("invoice\u{202E}xcod.exe", .bidirectionalControl("\u{202E}", offset: 7)),
        ("\u{202A}a", .bidirectionalControl("\u{202A}", offset: 0)),
        ("a\u{2066}b\u{2069}", .bidirectionalControl("\u{2066}", offset: 1)),
        ("x\u{2069}", .bidirectionalControl("\u{2069}", offset: 1)),
    ])
    func refused(name: String, error: WOPIName.ValidationError) {
        #expect(throws: error) { try WOPIName(name) }
    }

    @Test("every bidirectional embedding, override and isolate is refused; other format characters are not")
    func bidirectionalControls() throws {
        let refused = Array(0x202A...0x202E) + Array(0x2066...0x2069)
        #expect(WOPIName.bidirectionalControls.map(\.value).sorted() == refused.map(UInt32.init))
        for value in refused {
            let scalar = try #require(Unicode.Scalar(value))
            #expect(throws: WOPIName.ValidationError.bidirectionalControl(scalar, offset: 3)) { try WOPIName("abc\(Character(scalar)).docx") }
        }
        // Joiners and the Arabic and Hebrew names they appear in stay valid.
        _ = try WOPIName("क्\u{200D}ष.docx")
        _ = try WOPIName("تقرير.docx")
        #expect(WOPIName.sanitized("evil\u{202E}xcod.exe").rawValue == "evil-xcod.exe")
    }

    @Test("a file name that is only an extension is refused; a folder name starting with a dot is not", arguments: [
        (".docx", ".docx"), (" .docx", ".docx"), ("  .xlsx ", ".xlsx"), ("   .", "."),
    ])
    func onlyExtension(name: String, trimmed: String) throws {
        #expect(throws: WOPIName.ValidationError.onlyExtension(trimmed)) { try WOPIName(fileName: name) }
        #expect(WOPIName.problem(withFileName: name) == .onlyExtension(trimmed))
        _ = try WOPIName(".config")
        _ = try WOPIName(fileName: "a.docx")
        _ = try WOPIName(fileName: "README")
        #expect(throws: WOPIName.ValidationError.reservedName("..")) { try WOPIName(fileName: "..") }
        #expect(throws: WOPIName.ValidationError.refusedCharacter("<", offset: 0)) { try WOPIName(fileName: "<.docx") }
    }

    @Test("sanitizing a file name puts a name before a lone extension")
    func sanitizedFileName() {
        #expect(WOPIName.sanitized(fileName: ".docx").rawValue == "Untitled.docx")
        #expect(WOPIName.sanitized(fileName: "  .docx ").rawValue == "Untitled.docx")
        #expect(WOPIName.sanitized(fileName: "Plan.docx").rawValue == "Plan.docx")
        #expect(WOPIName.sanitized(fileName: "#.docx").rawValue == "-.docx")
        #expect(WOPIName.problem(withFileName: WOPIName.sanitized(fileName: "\u{202E}.docx").rawValue) == nil)
    }

    @Test("names are limited to 255 bytes of UTF-8, counted in bytes not characters")
    func length() throws {
        #expect(WOPIName.maximumUTF8Length == 255)
        #expect(throws: Never.self) { try WOPIName(String(repeating: "a", count: 255)) }
        #expect(throws: WOPIName.ValidationError.tooLong(utf8Length: 256)) { try WOPIName(String(repeating: "a", count: 256)) }
        // 85 three-byte characters = 255 bytes; one more is 258.
        #expect(throws: Never.self) { try WOPIName(String(repeating: "語", count: 85)) }
        #expect(throws: WOPIName.ValidationError.tooLong(utf8Length: 258)) { try WOPIName(String(repeating: "語", count: 86)) }
    }

    @Test("the file extension is lowercased and without its dot", arguments: [
        ("Report.DOCX", Optional("docx")), ("archive.tar.gz", "gz"), ("Ünïcode.Ölf", "ölf"),
        ("README", nil), (".profile", nil), ("trailing.", nil), ("a.b c", "b c"),
    ])
    func fileExtension(name: String, expected: String?) throws {
        #expect(try WOPIName(name).fileExtension == expected)
    }

    @Test("the base name drops the extension")
    func baseName() throws {
        #expect(try WOPIName("Report.final.docx").baseName == "Report.final")
        #expect(try WOPIName(".profile").baseName == ".profile")
        #expect(try WOPIName("README").baseName == "README")
    }

    @Test("sanitizing replaces refused and control characters with '-'", arguments: [
        (#"a/b\c:d*e?f"g<h>i|j#k{l}m^n[o]p`q%r.docx"#, "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r.docx"),
        ("Q1: plan?.xlsx", "Q1- plan-.xlsx"),
        ("tab\there\n", "tab-here-"),
        ("  padded.docx  ", "padded.docx"),
        ("", "Untitled"),
        ("   ", "Untitled"),
        (".", "-"),
        ("..", "--"),
        ("already fine.pptx", "already fine.pptx"),
    ])
    func sanitized(input: String, expected: String) throws {
        let name = WOPIName.sanitized(input)
        #expect(name.rawValue == expected)
        #expect(try WOPIName(name.rawValue) == name)
    }

    @Test("sanitizing shortens long names at a character boundary and keeps the extension")
    func sanitizedLong() throws {
        let long = WOPIName.sanitized(String(repeating: "語", count: 200) + ".docx")
        #expect(long.rawValue.utf8.count <= 255)
        #expect(long.rawValue.hasSuffix("語.docx"))
        #expect(long.fileExtension == "docx")
        #expect(long.rawValue.utf8.count > 255 - 3)  // nothing cut that would have fitted
        let noExtension = WOPIName.sanitized(String(repeating: "x", count: 400))
        #expect(noExtension.rawValue == String(repeating: "x", count: 255))
        let hugeExtension = WOPIName.sanitized("a." + String(repeating: "e", count: 300))
        #expect(hugeExtension.rawValue.utf8.count == 255)
    }

    @Test("sanitizing any random string gives a valid name")
    func sanitizedRandom() throws {
        var generator = SplitMix64(seed: 42)
        let alphabet = Array(#"ab.\/:*?"<>|#{}^[]`% 日😀"#) + ["\u{0}", "\n", "\u{2028}", "é"]
        for _ in 0..<500 {
            let length = Int.random(in: 0...300, using: &generator)
            let input = String((0..<length).compactMap { _ in alphabet.randomElement(using: &generator) })
            let name = WOPIName.sanitized(input)
            #expect(WOPIName(rawValue: name.rawValue) != nil, "\(input.debugDescription) → \(name.rawValue.debugDescription)")
        }
    }

    @Test("names encode as JSON strings and refuse invalid ones when decoded")
    func codable() throws {
        let name = try WOPIName("Report.docx")
        let json = try JSONEncoder().encode([name])
        #expect(String(decoding: json, as: UTF8.self) == #"["Report.docx"]"#)
        #expect(try JSONDecoder().decode([WOPIName].self, from: json) == [name])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([WOPIName].self, from: Data(#"["a:b"]"#.utf8)) }
    }

    @Test("errors describe the problem")
    func descriptions() {
        #expect(WOPIName.ValidationError.refusedCharacter("#", offset: 3).description
            == "invalid name: character '#' at offset 3 is refused by Office for iOS")
        #expect(WOPIName.ValidationError.controlCharacter("\u{0}", offset: 1).description
            == "invalid name: control character U+0000 at offset 1")
        #expect(WOPIName.ValidationError.tooLong(utf8Length: 300).description.contains("255"))
        #expect(WOPIName.ValidationError.bidirectionalControl("\u{202E}", offset: 7).description
            == "invalid name: bidirectional control U+202E at offset 7")
        #expect(WOPIName.ValidationError.onlyExtension(".docx").description
            == "invalid name: '.docx' is only an extension; a name is needed before it")
    }

    @Test("a numbered variant stays within 255 bytes: the stem is shortened at a character, never the extension")
    func numbered() throws {
        #expect(WOPIName.numbered("Budget.xlsx", 1) == "Budget (1).xlsx")
        #expect(WOPIName.numbered("Projects", 12, keepingExtension: false) == "Projects (12)")
        #expect(WOPIName.numbered("v1.2 notes", 2, keepingExtension: false) == "v1.2 notes (2)")
        #expect(WOPIName.numbered(".profile", 1) == ".profile (1)")
        let long = String(repeating: "L", count: 250) + ".docx"
        #expect(WOPIName.numbered(long, 1) == String(repeating: "L", count: 246) + " (1).docx")
        #expect(WOPIName.numbered(long, 1).utf8.count == 255)
        // Three-byte characters are kept whole; a space left at the cut does not stay before the counter.
        let wide = String(repeating: "資", count: 81) + " x.pptx"
        #expect(WOPIName.numbered(wide, 10) == wide.dropLast(5) + " (10).pptx", "it fits as it is")
        #expect(WOPIName.numbered(wide, 100) == String(repeating: "資", count: 81) + " (100).pptx")
        for counter in [1, 9, 10, 99, 100, 12345] {
            for name in [long, wide, String(repeating: "é", count: 127) + ".txt", String(repeating: "x", count: 255)] {
                let numbered = WOPIName.numbered(name, counter)
                #expect(numbered.utf8.count <= WOPIName.maximumUTF8Length, "\(counter): \(numbered.utf8.count) bytes")
                #expect(WOPIName(rawValue: numbered) != nil)
            }
        }
        // An extension too long to keep whole counts as stem: the name still fits.
        let oddExtension = "a." + String(repeating: "e", count: 252)
        #expect(WOPIName.numbered(oddExtension, 1).utf8.count == 255)
    }
}
