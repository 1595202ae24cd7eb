import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import WOPICore

/// The web front at `/`: a small file browser for the provider's users, from Safari on an iPhone
/// or a desktop browser (issue 14).
///
/// Routes, relative to the public URL:
/// - `GET /`: the user's root folder, or the sign-in form; `POST /signin`, `POST /signout`.
/// - `GET /folders/<id>`; `POST /folders/<id>/upload|create|rename|delete|share`.
/// - `GET /files/<id>/download`; `POST /files/<id>/rename|delete|share`.
/// - `GET /assets/upload.js`, `GET /assets/icon.svg`.
///
/// Signing in checks the same accounts against the same ``SignInThrottle`` counts and the same
/// password checker as `/oauth2/authorize`, and sets an HMAC-signed session cookie
/// (``WebSession``). Every form carries the session's CSRF token; each change answers with
/// `303 See Other` back to the folder (post/redirect/get), or with the folder page and an alert.
struct WebFrontController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend
    let throttle: SignInThrottle
    let passwords: PasswordChecker
    /// Verified against when a sign-in name is unknown, so a wrong name costs as much time as a wrong password.
    let decoyPasswordHash: PasswordHash

    /// The pre-sign-in CSRF cookie (double-submit, like the OAuth pages).
    static var signInCSRFCookie: String { "wopi_web_csrf" }
    /// The language chosen with the switch.
    static var languageCookie: String { "wopi_lang" }

    /// A controller whose sign-in shares `signIn` (throttle, password checker) with the OAuth pages.
    init(backend: WOPIBackend, sharing signIn: SignInGuard) {
        self.backend = backend
        self.throttle = signIn.throttle
        self.passwords = signIn.passwords
        self.decoyPasswordHash = signIn.decoyPasswordHash
    }

    func addRoutes(to router: Router<Context>) {
        router.get("/") { request, context in try await self.home(request, context: context) }
        router.post("signin") { request, context in try await self.signIn(request, context: context) }
        router.post("signout") { request, context in try await self.signOut(request, context: context) }
        router.get("folders/:id") { request, context in try await self.showFolder(request, context: context) }
        router.post("folders/:id/upload") { request, context in try await self.upload(request, context: context) }
        router.post("folders/:id/create") { request, context in try await self.createFolder(request, context: context) }
        router.post("folders/:id/rename") { request, context in try await self.rename(request, context: context, isFolder: true) }
        router.post("folders/:id/delete") { request, context in try await self.delete(request, context: context, isFolder: true) }
        router.post("folders/:id/share") { request, context in try await self.share(request, context: context, isFolder: true) }
        router.get("files/:id/download") { request, context in try await self.download(request, context: context) }
        router.post("files/:id/rename") { request, context in try await self.rename(request, context: context, isFolder: false) }
        router.post("files/:id/delete") { request, context in try await self.delete(request, context: context, isFolder: false) }
        router.post("files/:id/share") { request, context in try await self.share(request, context: context, isFolder: false) }
        router.get("assets/upload.js") { _, _ in WebFrontAssets.response(WebFrontAssets.uploadScript, type: "text/javascript; charset=utf-8") }
        router.get("assets/icon.svg") { _, _ in WebFrontAssets.response(WebFrontAssets.icon, type: "image/svg+xml") }
    }

    // MARK: Pages

    /// `GET /`: the root folder when signed in, else the sign-in form.
    func home(_ request: Request, context: Context) async throws -> Response {
        let (language, languageCookie) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else {
            return signInPage(request, language: language, username: "", error: nil, status: .ok, cookies: [languageCookie].compactMap { $0 })
        }
        return try await folderPage(user.rootContainerID, session: session, user: user, language: language, error: nil, status: .ok,
                                    cookies: [languageCookie].compactMap { $0 })
    }

    /// `GET /folders/<id>`.
    func showFolder(_ request: Request, context: Context) async throws -> Response {
        let (language, languageCookie) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/", cookies: [languageCookie].compactMap { $0 }) }
        guard let id = context.parameters.get("id").flatMap(ResourceID.init) else {
            return messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
        }
        return try await folderPage(id, session: session, user: user, language: language, error: nil, status: .ok,
                                    cookies: [languageCookie].compactMap { $0 })
    }

    /// A folder page (or a not-found page), with an optional alert.
    func folderPage(_ id: ResourceID, session: WebSession, user: UserRecord, language: PageLanguage, error: String?,
                    status: HTTPResponse.Status, cookies: [String] = []) async throws -> Response {
        guard let folder = try? await backend.container(id, for: user) else {
            return messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
        }
        let path = try await backend.store.containerPath(to: folder.id)
        let children = try await backend.store.children(of: folder.id)
        var links: [ResourceID: OfficeOpenLinks] = [:]
        for file in children.files { links[file.id] = officeLinks(file, for: user) }
        var page = FolderPage(path: path.isEmpty ? [folder] : path, folders: children.containers, files: children.files, officeLinks: links,
                              csrf: session.csrf, language: language, basePath: basePath,
                              maximumFileSize: backend.configuration.maximumFileSize, error: error)
        if folder.id == user.rootContainerID { page.shared = try await sharedEntries(for: user) }
        return layout(language, session: session, user: user, pagePath: "\(basePath)/folders/\(folder.id.rawValue)")
            .response(title: page.title, content: page.html, script: true, status: status, extraHeaders: Self.cookieHeaders(cookies))
    }

    /// The Office links that open `file` as `user`; `nil` when no offered app opens it.
    func officeLinks(_ file: FileRecord, for user: UserRecord) -> OfficeOpenLinks? {
        // `|d|` names the service as `wopi serve` prints it (seed 001's example uses the brand, "Contoso").
        OfficeOpenLinks(file: file, wopiSrc: backend.wopiSrc(.file(file.id)), service: backend.configuration.brandName, userID: user.id.rawValue)
    }

    /// What others shared with `user`, by name, each with its current role (issue 13).
    func sharedEntries(for user: UserRecord) async throws -> [FolderPage.SharedEntry] {
        var entries: [FolderPage.SharedEntry] = []
        for share in try await backend.store.shares(with: user.id) {
            let isFolder = share.itemKind == .container
            guard let item = try await backend.access(to: share.itemID, isContainer: isFolder, by: user.id), let role = item.role else { continue }
            let owner = try await backend.store.user(id: item.ownerID)?.displayName ?? ""
            entries.append(FolderPage.SharedEntry(
                name: item.name, isFolder: isFolder, ownerName: owner, role: role,
                pageURL: backend.shareLink(user: user.id, item: share.itemID, isContainer: isFolder),
                officeLinks: item.file.flatMap { officeLinks($0, for: user) }))
        }
        return entries.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// A page with one message and a link home.
    func messagePage(_ message: String, session: WebSession?, user: UserRecord?, language: PageLanguage, status: HTTPResponse.Status) -> Response {
        let strings = language.webFront
        let content = "<h1>\(HTMLText.escape(backend.configuration.brandName))</h1><p class=\"error\" role=\"alert\" id=\"error\">"
            + "\(HTMLText.escape(message))</p><p><a href=\"\(HTMLText.escape(basePath))/\">\(HTMLText.escape(strings.myFiles))</a></p>"
        let signedIn = session.flatMap { session in user.map { (session: session, displayName: $0.displayName) } }
        return WebFrontLayout(language: language, brand: backend.configuration.brandName, basePath: basePath, signedIn: signedIn,
                              pagePath: basePath + "/").response(title: strings.myFiles, content: content, status: status)
    }

    func layout(_ language: PageLanguage, session: WebSession?, user: UserRecord?, pagePath: String) -> WebFrontLayout {
        let signedIn = session.flatMap { session in user.map { (session: session, displayName: $0.displayName) } }
        return WebFrontLayout(language: language, brand: backend.configuration.brandName, basePath: basePath, signedIn: signedIn, pagePath: pagePath)
    }

    // MARK: Download

    /// `GET /files/<id>/download`: the body, streamed, as an attachment.
    func download(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/") }
        guard let id = context.parameters.get("id").flatMap(ResourceID.init), let file = try? await backend.file(id, for: user) else {
            return messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.contentDisposition] = "attachment; filename*=UTF-8''\(file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(blob: try await backend.blobs.read(file.blobKey, size: file.size)))
    }

    // MARK: Sessions and requests

    /// The page language: the switch (`?lang=`, remembered in a cookie), else `Accept-Language`.
    /// Returns the cookie to set when the switch was used.
    static func language(_ request: Request) -> (PageLanguage, setCookie: String?) {
        if let chosen = request.uri.queryParameters.get("lang").flatMap(PageLanguage.init(tag:)) {
            return (chosen, "\(languageCookie)=\(chosen.rawValue); Path=/; Max-Age=31536000; SameSite=Lax")
        }
        let remembered = AuthorizationServer.cookie(languageCookie, in: request).flatMap(PageLanguage.init(tag:))
        return (remembered ?? PageLanguage(culture: nil, acceptLanguage: request.headers[.acceptLanguage]), nil)
    }

    /// The path prefix of the public URL (empty, or `/prefix` behind a proxy).
    var basePath: String {
        var path = backend.configuration.publicURL.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// `; Secure` when the public URL is https.
    var secureAttribute: String {
        backend.configuration.publicURL.scheme?.lowercased() == "https" ? "; Secure" : ""
    }

    /// `303 See Other` to `location`, setting `cookies`.
    func seeOther(_ location: String, cookies: [String] = []) -> Response {
        var headers = Self.cookieHeaders(cookies)
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static func cookieHeaders(_ cookies: [String]) -> HTTPFields {
        var headers = HTTPFields()
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return headers
    }
}
