import Foundation
import OfficeURLScheme
import Testing

@Suite struct PassbackTests {
    static let seed = "clouddrive:ofe|u|https://contoso/Q4/budget.docx|z|no|c|folderviewQ4"

    @Test func parsesAndBuildsTheSeedExample() throws {
        let back = try OfficePassback(string: Self.seed)
        #expect(back.scheme == "clouddrive" && back.command == .edit && back.uploadPending == false)
        #expect(back.documentURL == "https://contoso/Q4/budget.docx" && back.context == "folderviewQ4")
        #expect(back.string == Self.seed)
        let built = try OfficePassback(scheme: "clouddrive", documentURL: "https://contoso/Q4/budget.docx", uploadPending: false, context: "folderviewQ4")
        #expect(built == back)
    }

    @Test func readsTheURLAnAppReceives() throws {
        // What the app gets when Office builds the passback with URL(string:).
        let url = try #require(URL(string: Self.seed))
        #expect(url.absoluteString.contains("%7C"))
        #expect(try OfficePassback(url: url) == OfficePassback(string: Self.seed))
        #expect(try OfficePassback(string: "clouddrive:ofe|u|https://h/a|z|YES").uploadPending == true)
    }

    @Test func passbackOfAnInvokeURI() throws {
        let invoke = try OfficeInvokeURI(string: InvokeURITests.seedEdit)
        let back = try #require(OfficePassback(returningFrom: invoke, uploadPending: false))
        #expect(back.string == Self.seed)
        let noPassback = try OfficeInvokeURI(app: .word, documentURL: "https://h/a")
        #expect(OfficePassback(returningFrom: noPassback, uploadPending: true) == nil)
    }

    @Test func rejectsBadPassbacks() {
        #expect(throws: OfficeURLError.invalidUploadPending("maybe")) { try OfficePassback(string: "cd:ofe|u|https://h/a|z|maybe") }
        #expect(throws: OfficeURLError.missingDocumentURL) { try OfficePassback(string: "cd:ofe|z|no") }
        #expect(throws: OfficeURLError.invalidScheme("1cd")) { try OfficePassback(scheme: "1cd", documentURL: "https://h/a") }
        #expect(throws: OfficeURLError.invalidScheme("c_d")) { try OfficePassback(string: "c_d:ofe|u|https://h/a") }
    }

    struct FolderState: Codable, Hashable {
        var folderID: String
        var sort: String
        var path: [String]
    }

    @Test func typedContextSurvivesWholeStringEncoding() throws {
        let state = FolderState(folderID: "Q4|2024", sort: "name&date=desc 100%", path: ["Ä", "€/|"])
        let invoke = try OfficeInvokeURI(app: .excel, documentURL: "https://contoso/Q4/budget.xlsx", passbackScheme: "clouddrive")
            .withContext(state)
        let context = try #require(invoke.context)
        #expect(context.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        #expect(try invoke.decodeContext(as: FolderState.self) == state)
        let back = try #require(OfficePassback(returningFrom: invoke, uploadPending: true))
        // A layer that percent-encodes everything (including %) and one that only encodes '|'.
        let everything = try #require(back.string.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ":"))))
        let pipesOnly = back.string.replacingOccurrences(of: "|", with: "%7C")
        for form in [back.string, back.url.absoluteString, pipesOnly, everything.replacingOccurrences(of: "%3A", with: ":")] {
            let received = try OfficePassback(string: form)
            #expect(try received.decodeContext(as: FolderState.self) == state, "\(form)")
        }
        #expect(throws: OfficeURLError.self) { try DocumentContextCoder.decode(FolderState.self, from: "not*base64") }
    }
}
