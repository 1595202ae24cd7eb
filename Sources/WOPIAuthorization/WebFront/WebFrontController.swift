import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import WOPICore
import WOPIHost

/// The web front at `/`: a small file browser for the provider's users, from Safari on an iPhone
/// or a desktop browser.
///
/// Routes, relative to the public URL:
/// - `GET /`: the user's root folder, or the sign-in form; `POST /signin`, `POST /signout`.
/// - `GET /folders/<id>`; `POST /folders/<id>/upload|create|rename|delete|share`.
/// - `GET /files/<id>/download`; `POST /files/<id>/rename|delete|share|new-from-template`.
/// - `GET /open/<id>`: the host page of a browser editor (``WebClients``).
/// - `GET /assets/upload.js`, `GET /assets/host-page.js`, `GET /assets/icon.svg`.
///
/// Signing in checks the same accounts against the same ``SignInThrottle`` counts and the same
/// password checker as `/oauth2/authorize`, and begins a session kept in the store (``WebSession``,
/// ``WebSessionStore``). Every form carries the session's CSRF token, and a form another site or
/// origin sends is refused (``RequestOriginRules``); each change answers with
/// `303 See Other` back to the folder (post/redirect/get), or with the folder page and an alert.
/// A store that fails gives the 503 page (``PageFailure``), never "not found".
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
        router.get("/") { request, context in try await page(request, context) { try await home(request, context: context) } }
        router.post("signin") { request, context in try await page(request, context) { try await signIn(request, context: context) } }
        router.post("signout") { request, context in try await page(request, context) { try await signOut(request, context: context) } }
        router.get("folders/:id") { request, context in try await page(request, context) { try await showFolder(request, context: context) } }
        router.post("folders/:id/upload") { request, context in try await page(request, context) { try await upload(request, context: context) } }
        router.post("folders/:id/create") { request, context in
            try await page(request, context) { try await createFolder(request, context: context) }
        }
        for (kind, isFolder) in [("folders", true), ("files", false)] {
            router.post("\(kind)/:id/rename") { request, context in
                try await page(request, context) { try await rename(request, context: context, isFolder: isFolder) }
            }
            router.post("\(kind)/:id/delete") { request, context in
                try await page(request, context) { try await delete(request, context: context, isFolder: isFolder) }
            }
            router.post("\(kind)/:id/share") { request, context in
                try await page(request, context) { try await share(request, context: context, isFolder: isFolder) }
            }
        }
        router.post("files/:id/new-from-template") { request, context in
            try await page(request, context) { try await newFromTemplate(request, context: context) }
        }
        router.get("files/:id/download") { request, context in try await page(request, context) { try await download(request, context: context) } }
        addTrashRoutes(to: router)
        router.get("open/:id") { request, context in try await page(request, context) { try await openInBrowser(request, context: context) } }
        router.get("assets/host-page.js") { _, _ in WebFrontAssets.response(HostPageScript.text, type: "text/javascript; charset=utf-8") }
        router.get("assets/upload.js") { _, _ in WebFrontAssets.response(WebFrontAssets.uploadScript, type: "text/javascript; charset=utf-8") }
        router.get("assets/icon.svg") { _, _ in WebFrontAssets.response(WebFrontAssets.icon, type: "image/svg+xml") }
    }

    /// `body`'s page, or the 503 page when the store fails under it.
    func page(_ request: Request, _ context: Context, _ body: () async throws -> Response) async throws -> Response {
        try await PageFailure.guarding(request, logger: context.logger, language: Self.language(request).0,
                                       brand: backend.configuration.brandName, basePath: basePath, body)
    }

    // MARK: Pages

    /// `GET /`: the root folder when signed in, else the sign-in form.
    func home(_ request: Request, context: Context) async throws -> Response {
        let (language, languageCookie) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else {
            return try await signInPage(request, language: language, username: "", error: nil, status: .ok, cookies: [languageCookie].compactMap { $0 })
        }
        return try await folderPage(user.rootContainerID, session: session, user: user, language: language, error: nil, status: .ok,
                                    cookies: [languageCookie].compactMap { $0 })
    }

    /// `GET /folders/<id>`.
    func showFolder(_ request: Request, context: Context) async throws -> Response {
        let (language, languageCookie) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/", cookies: [languageCookie].compactMap { $0 }) }
        guard let id = context.parameters.get("id").flatMap(ResourceID.init) else {
            return try messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
        }
        return try await folderPage(id, session: session, user: user, language: language, error: nil, status: .ok,
                                    cookies: [languageCookie].compactMap { $0 })
    }

    /// A folder page (or a not-found page), with an optional alert.
    func folderPage(_ id: ResourceID, session: WebSession, user: UserRecord, language: PageLanguage, error: String?,
                    status: HTTPResponse.Status, cookies: [Cookie] = []) async throws -> Response {
        guard let folder = try await owned({ try await backend.container(id, for: user) }) else {
            return try messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
        }
        let path = try await backend.store.containerPath(to: folder.id)
        let children = try await backend.store.children(of: folder.id)
        var links: [ResourceID: OfficeOpenLinks] = [:]
        for file in children.files { links[file.id] = officeLinks(file, for: user) }
        var inBrowser: Set<ResourceID> = []
        var templates: Set<ResourceID> = []
        if let clients = backend.configuration.webClients {
            for file in children.files where await clients.firstClient(handling: file.name) != nil { inBrowser.insert(file.id) }
            for file in children.files where await templateEditor(for: file) != nil { templates.insert(file.id) }
        }
        let page = FolderPage(path: path.isEmpty ? [folder] : path, folders: children.containers, files: children.files, officeLinks: links,
                              csrf: session.csrf, language: language, basePath: basePath,
                              maximumFileSize: backend.configuration.maximumFileSize, error: error,
                              shared: folder.id == user.rootContainerID ? try await sharedEntries(for: user) : [], openInBrowser: inBrowser,
                              templates: templates)
        return try layout(language, session: session, user: user, pagePath: "\(basePath)/folders/\(folder.id.rawValue)")
            .response("folder", page, title: page.title, script: true, status: status, extraHeaders: Self.cookieHeaders(cookies))
    }

    /// The Office links that open `file` as `user`; `nil` when no offered app opens it.
    func officeLinks(_ file: FileRecord, for user: UserRecord) -> OfficeOpenLinks? {
        // `|d|` names the service as `wopi serve` prints it (seed 001's example uses the brand, "Contoso").
        OfficeOpenLinks(file: file, wopiSrc: backend.wopiSrc(.file(file.id)), service: backend.configuration.brandName, userID: user.id.rawValue)
    }

    /// What others shared with `user`, by name, each with its current role.
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
    func messagePage(_ message: String, session: WebSession?, user: UserRecord?, language: PageLanguage,
                     status: HTTPResponse.Status) throws -> Response {
        let strings = language.webFront
        let page = MessagePage(heading: backend.configuration.brandName, message: message,
                               home: .init(href: basePath + "/", label: strings.myFiles))
        return try layout(language, session: session, user: user, pagePath: basePath + "/")
            .response("message", page, title: strings.myFiles, status: status)
    }

    func layout(_ language: PageLanguage, session: WebSession?, user: UserRecord?, pagePath: String) -> WebFrontLayout {
        let signedIn = session.flatMap { session in user.map { (session: session, displayName: $0.displayName) } }
        return WebFrontLayout(language: language, brand: backend.configuration.brandName, basePath: basePath, signedIn: signedIn, pagePath: pagePath)
    }

    /// The item `lookup` finds for the signed-in user, or `nil` when it does not exist or is someone
    /// else's (the lookup's 404). A failing store still throws, so it is never taken for "not found".
    func owned<Item>(_ lookup: () async throws -> Item) async throws -> Item? {
        do {
            return try await lookup()
        } catch let error as WOPIError where error.status == .notFound {
            return nil
        }
    }

    // MARK: Download

    /// `GET /files/<id>/download`: the body, streamed, as an attachment.
    func download(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/") }
        guard let id = context.parameters.get("id").flatMap(ResourceID.init),
              let file = try await owned({ try await backend.file(id, for: user) }) else {
            return try messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.contentDisposition] = "attachment; filename*=UTF-8''\(file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: try await backend.responseBody(of: file, logger: context.logger))
    }

    // MARK: Sessions and requests

    /// The page language: the switch (`?lang=`, remembered in a cookie), else `Accept-Language`.
    /// Returns the cookie to set when the switch was used.
    static func language(_ request: Request) -> (PageLanguage, setCookie: Cookie?) {
        if let chosen = request.uri.queryParameters.get("lang").flatMap(PageLanguage.init(tag:)) {
            return (chosen, Cookie(name: languageCookie, value: chosen.rawValue, maxAge: 31_536_000, path: "/", httpOnly: false, sameSite: .lax))
        }
        let remembered = request.cookies[languageCookie].flatMap { PageLanguage(tag: $0.value) }
        return (remembered ?? PageLanguage(culture: nil, acceptLanguage: request.headers[.acceptLanguage]), nil)
    }

    /// The path prefix of the public URL (empty, or `/prefix` behind a proxy).
    var basePath: String {
        var path = backend.configuration.publicURL.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// Whether cookies carry `Secure`: when the public URL is https.
    var secureCookies: Bool {
        backend.configuration.publicURL.scheme?.lowercased() == "https"
    }

    /// An `HttpOnly`, `SameSite=Lax` cookie for the web front's paths.
    func cookie(_ name: String, value: String, maxAge: Int? = nil) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: basePath + "/", secure: secureCookies, httpOnly: true, sameSite: .lax)
    }

    /// `303 See Other` to `location`, setting `cookies`.
    func seeOther(_ location: String, cookies: [Cookie] = []) -> Response {
        var headers = Self.cookieHeaders(cookies)
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static func cookieHeaders(_ cookies: [Cookie]) -> HTTPFields {
        var headers = HTTPFields()
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie.description)) }
        return headers
    }
}
