import Foundation
import Testing
import WOPICore

/// Browser editors' discovery documents, written for these tests in each client's documented form
/// (`Resources/Discovery`): actions by extension and by MIME type, favicons, proof keys, and the
/// action URL each placeholder rule yields.
@Suite("Browser editors: discovery and action URLs")
struct WebClientDiscoveryTests {
    static func document(_ name: String) throws -> DiscoveryDocument {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "xml", subdirectory: "Discovery"))
        return try DiscoveryDocument(xml: try Data(contentsOf: url))
    }

    static let wopiSrc = "https://files.example.test/wopi/files/F1"

    @Test("Microsoft's form: actions by extension in the external-https zone, favicons and both proof keys")
    func officeDiscovery() throws {
        let document = try Self.document("office-discovery")
        let actions = WebClientActions(document)
        let edit = try #require(actions.action(.edit, forFileNamed: "Report.DOCX"))
        #expect(edit.netZone == "external-https") // the internal-http Word edit action is not chosen
        #expect(edit.urlSource.hasPrefix("https://word.example.test/we/wordeditorframe.aspx?"))
        #expect(edit.favIconURL == "https://word.example.test/wv/resources/1033/FavIcon_Word.ico")
        #expect(actions.action(.view, forFileNamed: "Report.docx")?.urlSource.contains("wordviewerframe") == true)
        #expect(actions.action(.editnew, forFileNamed: "New.docx") != nil)
        #expect(actions.action(.edit, forFileNamed: "Budget.xlsx")?.appName == "Excel")
        #expect(actions.action(.editnew, forFileNamed: "Budget.xlsx") == nil)
        #expect(actions.action(.edit, forFileNamed: "notes.odt") == nil)
        #expect(!actions.handles(fileNamed: "README"))
        #expect(actions.extensionCount == 2)
        let keys = try #require(document.proofKeys)
        #expect(keys.old != nil)
    }

    @Test("Collabora's form: apps named by MIME type with an empty ext, Microsoft-style apps by ext, no proof keys")
    func collaboraDiscovery() throws {
        let document = try Self.document("collabora-discovery")
        #expect(document.proofKeys == nil)
        let actions = WebClientActions(document)
        // By MIME type, found from the file's extension.
        #expect(actions.action(.edit, forFileNamed: "Notes.odt")?.urlSource == "http://127.0.0.1:9980/browser/0123abc/cool.html?")
        #expect(actions.action(.edit, forFileNamed: "Plan.ods") != nil)
        #expect(actions.action(.edit, forFileNamed: "Report.docx") != nil)
        #expect(actions.action(.view, forFileNamed: "Scan.pdf") != nil)
        #expect(actions.action(.edit, forFileNamed: "Scan.pdf") == nil)
        // By extension, with the app's favicon.
        #expect(actions.action(.edit, forFileNamed: "Letter.rtf")?.favIconURL == "http://127.0.0.1:9980/browser/0123abc/images/x-office-document.svg")
        // "getinfo" is not an action a host page opens; an unlisted type is not handled.
        #expect(!actions.handles(fileNamed: "Deck.pptx"))
        #expect(actions.mimeTypeCount == 4)
    }

    @Test("Placeholders the host has values for are filled and encoded; the rest are removed whole")
    func placeholdersFilled() throws {
        let edit = try #require(WebClientActions(try Self.document("office-discovery")).action(.edit, forFileNamed: "a.docx"))
        let url = ActionURL(template: edit.urlSource, wopiSrc: Self.wopiSrc,
                            values: .init(uiLanguage: "de-DE", dataLanguage: "en-US", hostSessionID: "s 1"))
        #expect(url.string == "https://word.example.test/we/wordeditorframe.aspx?ui=de-DE&rs=en-US&hid=s%201&"
                + "wopisrc=https%3A%2F%2Ffiles.example.test%2Fwopi%2Ffiles%2FF1")
        #expect(!url.string.contains("<"))
        #expect(!url.string.contains("WOPISrc=")) // WOPI_SOURCE was filled, so it is not appended again
    }

    @Test("DISABLE_CHAT, SESSION_CONTEXT and BUSINESS_USER appear only when set; unknown placeholders never")
    func optionalPlaceholders() throws {
        let view = try #require(WebClientActions(try Self.document("office-discovery")).action(.view, forFileNamed: "a.docx"))
        let url = ActionURL(template: view.urlSource, wopiSrc: Self.wopiSrc,
                            values: .init(uiLanguage: "en-US", disableChat: true, sessionContext: "ctx", isBusinessUser: true))
        #expect(url.string.contains("dchat=1&"))
        #expect(url.string.contains("sc=ctx&"))
        #expect(url.string.hasSuffix("IsLicensedUser=1"))
        #expect(!url.string.contains("testcategory")) // VALIDATOR_TEST_CATEGORY: no value here
        #expect(!url.string.contains("rs="))
        let consumer = ActionURL(template: view.urlSource, wopiSrc: Self.wopiSrc, values: .init())
        #expect(!consumer.string.contains("IsLicensedUser"))
        #expect(consumer.string == "https://word.example.test/wv/wordviewerframe.aspx?wopisrc=https%3A%2F%2Ffiles.example.test%2Fwopi%2Ffiles%2FF1")
    }

    @Test("A template without WOPI_SOURCE gets WOPISrc appended")
    func wopiSrcAppended() throws {
        let edit = try #require(WebClientActions(try Self.document("collabora-discovery")).action(.edit, forFileNamed: "a.odt"))
        #expect(ActionURL(template: edit.urlSource, wopiSrc: Self.wopiSrc, values: .init(uiLanguage: "en-US")).string
                == "http://127.0.0.1:9980/browser/0123abc/cool.html?WOPISrc=https%3A%2F%2Ffiles.example.test%2Fwopi%2Ffiles%2FF1")
        #expect(ActionURL(template: "https://e.test/open?lang=en", wopiSrc: "x", values: .init()).string == "https://e.test/open?lang=en&WOPISrc=x")
        #expect(ActionURL(template: "https://e.test/open", wopiSrc: "x", values: .init()).string == "https://e.test/open?WOPISrc=x")
    }

    @Test("Collabora's save timestamp: equal to the second saves, a different or unreadable time refuses, none saves")
    func saveTimestampRule() {
        let stored = Date(timeIntervalSince1970: 1_800_000_000.75)
        #expect(SaveTimestampRule.evaluate(header: nil, storedModifiedTime: stored) == .save)
        #expect(SaveTimestampRule.evaluate(header: "", storedModifiedTime: stored) == .save)
        #expect(SaveTimestampRule.evaluate(header: "2027-01-15T08:00:00Z", storedModifiedTime: stored) == .save)
        #expect(SaveTimestampRule.evaluate(header: "2027-01-15T08:00:00.750Z", storedModifiedTime: stored) == .save)
        #expect(SaveTimestampRule.evaluate(header: "2027-01-15T08:00:01Z", storedModifiedTime: stored) == .documentChanged)
        #expect(SaveTimestampRule.evaluate(header: "yesterday", storedModifiedTime: stored) == .documentChanged)
    }
}
