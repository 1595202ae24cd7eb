import Foundation
import OfficeURLScheme
import Testing

@Suite struct InvokeURITests {
    static let seedEdit = "ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4"
    static let seedWOPI = "ms-word:ofe|u|https://contoso/wopi/file/12312|d|Contoso|e|a3243d|n|document1.docx|a|App"

    @Test func rendersSeedExamplesByteForByte() throws {
        let edit = try OfficeInvokeURI(app: .word, command: .edit, documentURL: "https://contoso/Q4/budget.docx",
                                       passbackScheme: "clouddrive", context: "folderviewQ4")
        #expect(edit.string == Self.seedEdit)
        let wopi = try OfficeInvokeURI(app: .word, command: .edit, documentURL: "https://contoso/wopi/file/12312",
                                       service: "Contoso", user: "a3243d", fileName: "document1.docx", source: .app)
        #expect(wopi.string == Self.seedWOPI)
    }

    @Test func percentEncodedFormIsWhatFoundationMakes() throws {
        let edit = try OfficeInvokeURI(string: Self.seedEdit)
        let expected = "ms-word:ofe%7Cu%7Chttps%3A//contoso/Q4/budget.docx%7Cp%7Cclouddrive%7Cc%7CfolderviewQ4"
        #expect(edit.percentEncodedString == expected)
        #expect(edit.url.absoluteString == expected)
        #expect(URL(string: Self.seedEdit)?.absoluteString == expected)
        #expect(URL(string: Self.seedEdit, encodingInvalidCharacters: false) == nil)
    }

    @Test func parsesRawEncodedAndURLForms() throws {
        let raw = try OfficeInvokeURI(string: Self.seedWOPI)
        #expect(raw.app == .word && raw.command == .edit)
        #expect(raw.documentURL == "https://contoso/wopi/file/12312")
        #expect(raw.service == "Contoso" && raw.user == "a3243d" && raw.fileName == "document1.docx" && raw.source == .app)
        #expect(try OfficeInvokeURI(string: raw.percentEncodedString) == raw)
        #expect(try OfficeInvokeURI(url: raw.url) == raw)
        #expect(try OfficeInvokeURI(string: "  \(Self.seedWOPI)\n") == raw)
    }

    @Test func abbreviatedFormMeansView() throws {
        let short = try OfficeInvokeURI(string: "ms-excel:https://contoso/Q4/budget.xlsx")
        #expect(short.command == .view && short.app == .excel && short.documentURL == "https://contoso/Q4/budget.xlsx")
        let encoded = try OfficeInvokeURI(string: "ms-word:https%3A//contoso/a%2520b.docx")
        #expect(encoded.documentURL == "https://contoso/a%20b.docx")
        #expect(throws: OfficeURLError.argumentsAfterAbbreviatedForm("|p|clouddrive")) {
            try OfficeInvokeURI(string: "ms-word:https://contoso/a.docx|p|clouddrive")
        }
    }

    @Test func encodesValuesExactly() throws {
        let invoke = try OfficeInvokeURI(app: .word, documentURL: "https://contoso/Q4/bud get%20x ä.docx",
                                         fileName: "Bericht für Q4.docx", context: "a|b 50% #1 €")
        #expect(invoke.string == "ms-word:ofe|u|https://contoso/Q4/bud%20get%20x%20%C3%A4.docx|n|Bericht%20f%C3%BCr%20Q4.docx|c|a%7Cb%2050%25%20%231%20%E2%82%AC")
        let back = try OfficeInvokeURI(string: invoke.string)
        #expect(back.context == "a|b 50% #1 €")
        #expect(back.fileName == "Bericht für Q4.docx")
        // Already-encoded URLs are not encoded twice; `:` and `/` stay.
        #expect(back.documentURL == "https://contoso/Q4/bud%20get%20x%20%C3%A4.docx")
        #expect(try OfficeInvokeURI(url: invoke.url) == invoke)
    }

    @Test func keepsUnknownPairsInOrderAfterKnownOnes() throws {
        let parsed = try OfficeInvokeURI(string: "ms-word:ofe|zz|2|c|ctx|u|https://h/x.docx|y|1|p|back")
        #expect(parsed.extraArguments.map(\.descriptor) == ["zz", "y"])
        #expect(parsed.extraArguments.map(\.value) == ["2", "1"])
        #expect(parsed.string == "ms-word:ofe|u|https://h/x.docx|p|back|c|ctx|zz|2|y|1")
    }

    @Test func newFromTemplateWithSaveLocation() throws {
        let nft = try OfficeInvokeURI(app: .powerpoint, command: .newFromTemplate, documentURL: "https://contoso/t/deck.potx",
                                      saveLocation: "https://CONTOSO/decks")
        #expect(nft.string == "ms-powerpoint:nft|u|https://contoso/t/deck.potx|s|https://CONTOSO/decks")
        #expect(throws: OfficeURLError.saveLocationOnAnotherHost(documentHost: "contoso", saveLocationHost: "fabrikam")) {
            try OfficeInvokeURI(app: .word, command: .newFromTemplate, documentURL: "https://contoso/t.dotx", saveLocation: "https://fabrikam/x")
        }
        #expect(throws: OfficeURLError.saveLocationWithoutNewFromTemplate) {
            try OfficeInvokeURI(string: "ms-word:ofe|u|https://contoso/a.docx|s|https://contoso/b")
        }
        #expect(throws: OfficeURLError.newFromTemplateNotSupported(.infopath)) {
            try OfficeInvokeURI(app: .infopath, command: .newFromTemplate, documentURL: "https://contoso/t.xsn")
        }
    }

    @Test(arguments: [
        ("ms-foo:ofe|u|https://h/a", OfficeURLError.unknownScheme("ms-foo")),
        ("ms-word:open|u|https://h/a", OfficeURLError.unknownCommand("open")),
        ("ms-word:ofe|p|back", OfficeURLError.missingDocumentURL),
        ("ms-word:ofe", OfficeURLError.missingDocumentURL),
        ("ms-word:ofe|u|ftp://h/a.docx", OfficeURLError.unsupportedDocumentURL("ftp://h/a.docx")),
        ("ms-word:ofe|u|https:///a.docx", OfficeURLError.unsupportedDocumentURL("https:///a.docx")),
        ("ms-word:ofe|u|https://h/a|p|1back", OfficeURLError.invalidScheme("1back")),
        ("ms-word:ofe|u|https://h/a|n|a:b.docx", OfficeURLError.invalidFileName("a:b.docx", character: ":")),
        ("ms-word:ofe|u|https://h/a|u|https://h/b", OfficeURLError.duplicateArgument("|u|")),
        ("ms-word:ofe|u|https://h/a|c", OfficeURLError.missingArgumentValue(descriptor: "c")),
        ("ms-word:ofe|u|https://h/a|a|Phone", OfficeURLError.invalidSource("Phone")),
        ("no scheme here", OfficeURLError.missingScheme("no scheme here")),
    ])
    func rejectsWithANamedProblem(input: String, expected: OfficeURLError) {
        #expect(throws: expected) { try OfficeInvokeURI(string: input) }
        #expect(!expected.description.isEmpty && !expected.description.contains("\n"))
    }

    @Test func fileNamesWithEachForbiddenCharacterAreRejected() {
        for character in #"\/:*?"<>|#{}^[]`%"# {
            #expect(throws: OfficeURLError.invalidFileName("a\(character)b.docx", character: character)) {
                try OfficeInvokeURI(app: .word, documentURL: "https://h/x", fileName: "a\(character)b.docx")
            }
        }
    }

    @Test func lengthLimitsAreWarningsNotErrors() throws {
        let path = String(repeating: "a", count: 220)
        let excel = try OfficeInvokeURI(app: .excel, documentURL: "https://h/\(path).xlsx")
        #expect(excel.warnings == [.urlTooLong(descriptor: "u", length: 235, limit: 216, app: .excel)])
        let word = try OfficeInvokeURI(app: .word, documentURL: "https://h/\(path).docx")
        #expect(word.warnings.isEmpty)
        let long = try OfficeInvokeURI(app: .word, documentURL: "https://h/\(path)\(path).docx")
        #expect(long.warnings.count == 1)
        #expect(long.warnings.first?.description.contains("256") == true)
    }

    @Test func descriptionsNameTheProblem() {
        #expect(OfficeURLError.unknownScheme("ms-foo").description.contains("ms-foo"))
        #expect(OfficeURLError.invalidFileName("a?b", character: "?").description.contains("'?'"))
        #expect(OfficeURLError.missingDocumentURL.description.contains("|u|"))
        #expect(OfficeURLError.unknownCommand("x\ny").description.contains("\\u{a}"))
    }
}
