import Foundation
import OfficeURLScheme
import Testing

/// Keeps the documentation's Swift code from drifting from the API: every ```swift block of
/// README.md and of the DocC article must appear in Snippets.swift (which the compiler checks),
/// and the snippets run here against fakes.
@MainActor
@Suite(.serialized) struct DocumentationSnippetTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let article = "Sources/OfficeURLScheme/Documentation.docc/OpenInOffice.md"
    static let exampleInfoPlist = "Examples/CloudDrive/CloudDrive/Info.plist"

    static func text(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// The ```swift blocks of a Markdown file, each split into paragraphs of trimmed lines.
    static func swiftBlocks(in markdown: String) -> [[[String]]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current ?? [])
                current = nil
            } else if current != nil {
                current?.append(trimmed)
            }
        }
        return blocks.map { block in
            block.split(separator: "", omittingEmptySubsequences: true).map(Array.init)
        }
    }

    /// The paragraphs of `markdown`'s Swift blocks that do not appear, line for line, in the snippet sources.
    static func missingParagraphs(of markdown: String) throws -> [String] {
        // Snippets.swift holds this module's; the S3 store's stand in its own test target, which links it.
        let sources = try ["Tests/OfficeURLSchemeTests/DocumentationSnippets/Snippets.swift", "Tests/WOPIBlobStoreS3Tests/ReadmeSnippets.swift"]
            .map { try text($0).components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }
        return swiftBlocks(in: markdown).flatMap { $0 }.filter { paragraph in
            !sources.contains { source in
                source.indices.contains { start in
                    start + paragraph.count <= source.count && Array(source[start..<(start + paragraph.count)]) == paragraph
                }
            }
        }.map { $0.joined(separator: "\n") }
    }

    @Test func readmeAndArticleSnippetsAreCompiledCode() throws {
        let readme = try Self.text("README.md")
        let article = try Self.text(Self.article)
        // Enough blocks that a broken extractor cannot pass by finding none.
        #expect(Self.swiftBlocks(in: readme).count >= 2)
        #expect(Self.swiftBlocks(in: article).count >= 6)
        #expect(try Self.missingParagraphs(of: readme) == [])
        #expect(try Self.missingParagraphs(of: article) == [])
        // And the check does catch drift.
        #expect(try Self.missingParagraphs(of: "```swift\nlet invoke = try OfficeInvokeURI(app: .word, url: x)\n```") != [])
    }

    @Test func readmeQuickStartOpensWordAndReadsThePassback() async throws {
        UIApplication.shared.reset(installed: ["ms-word"])
        let back = try OfficePassback(scheme: "clouddrive", documentURL: "https://contoso/Q4/budget.docx", uploadPending: false, context: "folderviewQ4")
        let (invoke, shown) = try await readmeQuickStart(returnedURL: back.url)
        #expect(invoke.string == "ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4")
        #expect(UIApplication.shared.opened == [invoke.url])
        #expect(shown == back)
    }

    @Test func readmeTypedContextSurvivesTheRoundTrip() throws {
        struct FolderState: Codable { var folderID: String; var sort: String }
        let sent = try OfficeInvokeURI(app: .excel, documentURL: "https://contoso/Q4/b.xlsx", passbackScheme: "clouddrive")
            .withContext(FolderState(folderID: "Q4|2026", sort: "name"))
        let returned = try #require(OfficePassback(returningFrom: sent, uploadPending: true))
        let result = try readmeTypedContext(url: "https://contoso/Q4/b.xlsx", returnedURL: returned.url)
        #expect(result.invoke == sent)
        #expect(result.folderID == "Q4|2026" && result.sort == "name")
    }

    @Test func articleInfoPlistStepPassesOnTheExampleAppAndCatchesGaps() throws {
        let app = ArticleApp(server: URL(string: "http://127.0.0.1:8080")!)
        #expect(try app.checkInfoPlist(at: Self.repository.appendingPathComponent(Self.exampleInfoPlist)) == [])
        let bare = FileManager.default.temporaryDirectory.appendingPathComponent("bare-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: bare) }
        try PropertyListSerialization.data(fromPropertyList: ["CFBundleName": "X"], format: .xml, options: 0).write(to: bare)
        let findings = try app.checkInfoPlist(at: bare)
        #expect(findings.contains { $0.kind == .unregisteredURLScheme && $0.subject == "clouddrive" })
        #expect(findings.contains { $0.kind == .missingQueriedScheme && $0.subject == "ms-word-wopi-support-1605" })
    }

    @Test func articleOffersTheStoreWhenWordIsMissing() async throws {
        UIApplication.shared.reset(installed: [])
        let app = ArticleApp(server: URL(string: "http://127.0.0.1:8080")!)
        let returned = URL(string: "clouddrive:ofe%7Cu%7Chttps%3A//contoso.example/wopi/files/f1%7Cz%7Cno%7Cc%7C"
                           + (try DocumentContextCoder.encode(["folderID": "Q4|2026", "sort": "name"])))!
        _ = try await app.openAndReturn(returnedURL: returned)
        let word = AppStoreProduct(id: 586_447_913, device: .universal)
        #expect(app.offeredProducts == [word])
        #expect(app.alerts.count == 1 && app.alerts.first?.product == word)
        #expect(app.alerts.first?.message.contains("Microsoft Word") == true)
        #expect(UIApplication.shared.opened.isEmpty)
    }

    @Test func articleOpensWordAndReadsTheTypedContextBack() async throws {
        UIApplication.shared.reset(installed: ["ms-word", "ms-word-wopi-support-1605"])
        let app = ArticleApp(server: URL(string: "http://127.0.0.1:8080")!)
        let returned = URL(string: "clouddrive:ofe%7Cu%7Chttps%3A//contoso.example/wopi/files/f1%7Cz%7Cno%7Cc%7C"
                           + (try DocumentContextCoder.encode(["folderID": "Q4|2026", "sort": "name"])))!
        let (typed, folderID) = try await app.openAndReturn(returnedURL: returned)
        #expect(folderID == "Q4|2026")
        #expect(typed.string.hasPrefix("ms-word:ofe|u|https://contoso.example/wopi/files/f1|d|contoso|e|u1|n|Report.docx|a|App|p|clouddrive|c|"))
        #expect(UIApplication.shared.opened.map(\.absoluteString) == [
            "ms-word:ofe%7Cu%7Chttps%3A//contoso.example/wopi/files/f1%7Cd%7Ccontoso%7Ce%7Cu1%7Cn%7CReport.docx%7Ca%7CApp%7Cp%7Cclouddrive%7Cc%7Chome",
        ])
        #expect(app.alerts.isEmpty && app.offeredProducts.isEmpty)
    }

    @Test func articlePassbackHandlerAndSignInRefusal() async throws {
        UIApplication.shared.reset(installed: [])
        let app = ArticleApp(server: URL(string: "http://127.0.0.1:8080")!)
        app.handleIncoming(URL(string: "clouddrive:ofe%7Cu%7Chttps%3A//contoso.example/wopi/files/f1%7Cz%7Cyes%7Cc%7Chome")!)
        app.handleIncoming(URL(string: "https://example.com/not-office")!)
        #expect(app.reopened.count == 1 && app.reopened.first?.context == "home" && app.reopened.first?.uploadPending == true)

        // The sign-in page is shown for the app's own client with PKCE; a callback for another
        // sign-in is refused before anything reaches the network or Office.
        var shownPage: (url: URL, scheme: String)?
        app.signInPage = { url, scheme in
            shownPage = (url, scheme)
            return URL(string: "clouddrive:/oauth2/callback?code=c&state=forged")!
        }
        let request = try SignInRequest(string: "clouddrive:client_id=office&response_type=code&app=word&action=A")
        await #expect(throws: HostSignInError.self) { try await app.answerSignIn(request) }
        let page = try #require(shownPage)
        #expect(page.scheme == "clouddrive" && page.url.path == "/oauth2/authorize")
        #expect(page.url.query?.contains("code_challenge_method=S256") == true && page.url.query?.contains("client_id=wopikit-app") == true)
        #expect(UIApplication.shared.opened.isEmpty)
    }
}
