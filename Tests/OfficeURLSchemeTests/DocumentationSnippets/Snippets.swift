// The Swift code of README.md and of the DocC article "Open a document in Office and get the
// user back" (Sources/OfficeURLScheme/Documentation.docc/OpenInOffice.md), compiled against the
// real API. DocumentationSnippetTests checks that every ```swift block of those documents appears
// here, paragraph by paragraph, and runs these functions.
//
// Only the app's own pieces are stand-ins, outside the quoted paragraphs: UIKit does not exist
// on Linux (see AppStandIns.swift), and the sign-in page and the alerts belong to the app.
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OfficeURLScheme

// MARK: README.md

/// "30 seconds: hand a document to Word and get the user back".
@MainActor
func readmeQuickStart(returnedURL: URL) async throws -> (invoke: OfficeInvokeURI, shown: OfficePassback?) {
    var shown: OfficePassback?
    func show(_ passback: OfficePassback) { shown = passback }

    // Open https://contoso/Q4/budget.docx in Word for editing; Word returns to "clouddrive:" with the context.
    let invoke = try OfficeInvokeURI(app: .word, command: .edit,
                                     documentURL: "https://contoso/Q4/budget.docx",
                                     passbackScheme: "clouddrive", context: "folderviewQ4")
    print(invoke.string)   // ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4
    await UIApplication.shared.open(invoke.url)

    // Later, in your app delegate / scene delegate:
    func handle(_ url: URL) {
        guard let passback = try? OfficePassback(url: url) else { return }
        show(passback)   // passback.documentURL, passback.uploadPending, passback.context
    }

    handle(returnedURL)
    return (invoke, shown)
}

/// "Which string reaches `UIApplication.open`": the typed document context.
func readmeTypedContext(url: String, returnedURL: URL) throws -> (invoke: OfficeInvokeURI, folderID: String, sort: String) {
    struct FolderState: Codable { var folderID: String; var sort: String }
    let invoke = try OfficeInvokeURI(app: .excel, command: .edit, documentURL: url, passbackScheme: "clouddrive")
        .withContext(FolderState(folderID: "Q4|2026", sort: "name"))
    // … later
    let state = try OfficePassback(url: returnedURL).decodeContext(as: FolderState.self)
    return (invoke, state.folderID, state.sort)
}

// MARK: The article

/// The article's steps, as methods of a small app model.
@MainActor
final class ArticleApp {
    let server: URL
    private(set) var offeredProducts: [AppStoreProduct?] = []
    private(set) var alerts: [(message: String, product: AppStoreProduct?)] = []
    private(set) var reopened: [(context: String?, uploadPending: Bool)] = []
    /// What the app's `ASWebAuthenticationSession` would return.
    var signInPage: (URL, String) async throws -> URL = { _, _ in throw URLError(.userCancelledAuthentication) }

    init(server: URL) {
        self.server = server
    }

    func offerInstall(_ product: AppStoreProduct?) { offeredProducts.append(product) }
    func showAlert(_ message: String, offering product: AppStoreProduct?) { alerts.append((message, product)) }
    func reopenFolder(_ context: String?, uploadPending: Bool) { reopened.append((context, uploadPending)) }
    func presentSignInPage(_ url: URL, callbackScheme: String) async throws -> URL { try await signInPage(url, callbackScheme) }

    /// Step 1.
    func checkInfoPlist(at infoPlistURL: URL) throws -> [InfoPlistFinding] {
        let findings = try InfoPlistCheck(passbackScheme: "clouddrive", signInScheme: "clouddrive")
            .check(contentsOf: infoPlistURL)
        for finding in findings {
            print(finding.problem, finding.fix)
        }
        return findings
    }

    /// Steps 2, 3 and 5.
    func openAndReturn(returnedURL: URL) async throws -> (typed: OfficeInvokeURI, folderID: String) {
        let detector = OfficeAppDetector(opener: UIApplicationURLOpener())
        if !detector.isInstalled(.word) {
            offerInstall(detector.storeProduct(for: .word, device: .iPhone))
        }

        let invoke = try OfficeInvokeURI(app: .word, command: .edit,
                                         documentURL: "https://contoso.example/wopi/files/f1",
                                         service: "contoso", user: "u1", fileName: "Report.docx",
                                         source: .app, passbackScheme: "clouddrive", context: "home")
        let result = await detector.open(invoke, device: .iPhone)
        if let message = result.userMessage(language: "en") {
            showAlert(message, offering: result.storeProduct)
        }

        struct FolderState: Codable { var folderID: String; var sort: String }
        let typed = try invoke.withContext(FolderState(folderID: "Q4|2026", sort: "name"))
        // … when Office returns:
        let state = try OfficePassback(url: returnedURL).decodeContext(as: FolderState.self)
        return (typed, state.folderID)
    }

    /// Step 4.
    func handleIncoming(_ url: URL) {
        switch try? OfficeURLMessage(url: url) {
        case .passback(let back)?:
            reopenFolder(back.context, uploadPending: back.uploadPending == true)
        case .signInRequest(let request)?:
            Task { try await answerSignIn(request) }
        default:
            break
        }
    }

    /// Step 6.
    func answerSignIn(_ request: SignInRequest) async throws {
        let signIn = try HostSignIn(server: server, callbackScheme: "clouddrive",
                                    sha256: { Data(SHA256.hash(data: $0)) })
        let callback = try await presentSignInPage(signIn.authorizationURL(), callbackScheme: signIn.callbackScheme)
        let code = try signIn.authorizationCode(fromCallback: callback)
        let (tokenData, _) = try await URLSession.shared.data(for: signIn.tokenRequest(code: code))
        let accessToken = try signIn.accessToken(fromTokenResponse: tokenData)
        let (grant, _) = try await URLSession.shared.data(for: signIn.appToAppRequest(for: request, accessToken: accessToken))
        let answer = try signIn.answer(to: request, appToAppResponse: grant)
        await UIApplication.shared.open(answer.url)
    }

    /// Step 6, when the host signs people in through the app's identity provider.
    func answerSignIn(_ request: SignInRequest, idToken: String) async throws {
        let exchange = try IdentityTokenExchange(server: server)
        let (data, _) = try await URLSession.shared.data(for: exchange.request(for: request, subjectToken: idToken))
        let answer = try exchange.answer(to: request, exchangeResponse: data)
        await UIApplication.shared.open(answer.url)
    }

    /// The README's app-to-app call through the identity provider.
    func answerThroughTheIdentityProvider(_ officeRequest: SignInRequest, idToken: String) async throws {
        let exchange = try IdentityTokenExchange(server: URL(string: "https://wopi.contoso.com")!)
        let (data, _) = try await URLSession.shared.data(for: exchange.request(for: officeRequest, subjectToken: idToken))
        await UIApplication.shared.open(try exchange.answer(to: officeRequest, exchangeResponse: data).url)
    }
}
