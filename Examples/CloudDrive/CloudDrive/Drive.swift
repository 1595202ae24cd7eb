import CryptoKit
import Foundation
import OfficeURLScheme

/// Where the host is and how it knows this app (`wopi serve --ios-url-scheme clouddrive --provider-id contoso`).
struct DriveConfiguration {
    /// The host's public URL; the iOS simulator reaches the Mac's loopback.
    var server: URL
    /// The providerId the host announces, the `|d|` of invoke URIs.
    var providerID: String
    /// This app's URL scheme: the passback, the sign-in redirect and the app-to-app sign-in scheme.
    var scheme: String

    static let localHost = DriveConfiguration(server: URL(string: "http://127.0.0.1:8080")!, providerID: "contoso", scheme: "clouddrive")
}

/// The app's state. Every URL and request comes from OfficeURLScheme; this type only sends them.
@MainActor
final class Drive: ObservableObject {
    /// Shows the sign-in page and returns the callback URL: `ASWebAuthenticationSession` in the view.
    typealias WebSignIn = (URL, String) async throws -> URL

    let configuration: DriveConfiguration
    @Published private(set) var files: [HostedFile] = []
    @Published private(set) var userID: String?
    @Published var status = "Sign in to list your files."
    private var session: (signIn: HostSignIn, accessToken: String)?

    init(configuration: DriveConfiguration) {
        self.configuration = configuration
    }

    /// Signs in to the host as this app (PKCE), then lists the root folder.
    func signIn(using web: WebSignIn) async {
        do {
            try await ensureSession(web)
            try await refresh()
        } catch {
            status = "Sign-in failed: \(error)"
        }
    }

    /// Lists the root folder through the bootstrapper, as Office does.
    func refresh() async throws {
        guard let session else { return }
        let list = HostFileList(bootstrapper: configuration.server.appendingPathComponent("wopibootstrapper"))
        let root = try list.rootContainer(from: try await send(list.rootContainerRequest(accessToken: session.accessToken)))
        files = try list.files(from: try await send(list.childrenRequest(of: root)))
        userID = root.userID
        status = "\(files.count) files in \(root.name)."
    }

    /// The WOPI invoke URI for `file`, returning to this app with the file name as context.
    func invokeURI(for file: HostedFile) -> OfficeInvokeURI? {
        guard let userID else { return nil }
        return try? file.invokeURI(service: configuration.providerID, user: userID, passbackScheme: configuration.scheme, context: file.name)
    }

    /// Every URL the app is opened with: Office's passback or its app-to-app sign-in request.
    func handle(_ message: OfficeURLMessage, using web: @escaping WebSignIn) async {
        switch message {
        case .passback(let back):
            status = "Back from Office (\(back.context ?? "a document"))" + (back.uploadPending == true ? ", still uploading." : ".")
            try? await refresh()
        case .signInRequest(let request):
            await answer(request, using: web)
        default:
            break
        }
    }

    /// App-to-app sign-in: a code for Office from the host's `/oauth2/app-to-app`, sent back as `ms-word-tp:code=…`.
    private func answer(_ request: SignInRequest, using web: WebSignIn) async {
        var answer: SignInResponse?
        do {
            try await ensureSession(web)
            if let session {
                let grant = try await send(session.signIn.appToAppRequest(for: request, accessToken: session.accessToken))
                answer = try session.signIn.answer(to: request, appToAppResponse: grant)
            }
        } catch {
            status = "Could not sign Office in: \(error)"
            answer = try? request.errorResponse(OAuthAuthorizationError(code: OAuthAuthorizationError.accessDenied, description: "\(error)"))
        }
        if let answer { _ = await UIApplicationURLOpener().open(answer.url) }
    }

    private func ensureSession(_ web: WebSignIn) async throws {
        guard session == nil else { return }
        let signIn = try HostSignIn(server: configuration.server, callbackScheme: configuration.scheme,
                                    sha256: { Data(SHA256.hash(data: $0)) })
        let callback = try await web(signIn.authorizationURL(), signIn.callbackScheme)
        let code = try signIn.authorizationCode(fromCallback: callback)
        let accessToken = try signIn.accessToken(fromTokenResponse: try await send(signIn.tokenRequest(code: code)))
        session = (signIn, accessToken)
    }

    private func send(_ request: URLRequest) async throws -> Data {
        try await URLSession.shared.data(for: request).0
    }
}
