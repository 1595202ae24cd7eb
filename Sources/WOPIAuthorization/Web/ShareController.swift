import Foundation
import HTTPTypes
import Hummingbird
import WOPICore
import WOPIHost

/// The pages behind GetShareUrl links (the web front at `/` is ``WebFrontController``).
///
/// `/share/<token>` shows one shared file (name, size, date, download) or a shared folder (its
/// files and folders, each with its own link expiring with the parent's). The token is a signed,
/// expiring share-link token; WOPI endpoints never accept it. It works while its maker may still
/// open the item, and never grants more than the maker's role at the time it is used.
///
/// The pages speak the visitor's language, chosen as on the web front (`?lang=`, its cookie, then
/// `Accept-Language`), in the web front's frame. A link that is not valid, has expired or whose
/// item is gone gets a 404 page in that language. `HEAD` answers the page and the download with
/// the headers `GET` would send and no body.
///
/// A `ReadWrite` link also offers a signed-in visitor (the web front's session) a form,
/// `POST /share/<token>/accept`, that shares the item with them as an editor: it then appears in their
/// "Shared with me" and every WOPI operation treats them as its editor, until the owner removes the share.
struct ShareController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to router: Router<Context>) {
        router.get("share/:token") { request, context in
            try await guarded(request, context) { language in try await page(request, context: context, language: language) }
        }
        router.head("share/:token") { request, context in
            try await guarded(request, context) { language in
                try await page(request, context: context, language: language).createHeadResponse()
            }
        }
        router.get("share/:token/content") { request, context in
            try await guarded(request, context) { _ in try await download(request, context: context, withBody: true) }
        }
        router.head("share/:token/content") { request, context in
            try await guarded(request, context) { _ in try await download(request, context: context, withBody: false) }
        }
        router.post("share/:token/accept") { request, context in
            try await guarded(request, context) { _ in try await accept(request, context: context) }
        }
    }

    /// `body`'s answer in the visitor's language; the invalid-link page when the link is not live, or
    /// the 503 page when the store fails under it.
    private func guarded(_ request: Request, _ context: Context, _ body: (PageLanguage) async throws -> Response) async throws -> Response {
        let (language, languageCookie) = WebFrontController<Context>.language(request)
        return try await PageFailure.guarding(request, logger: context.logger, language: language, brand: backend.configuration.brandName,
                                              basePath: basePath) {
            var response: Response
            do {
                response = try await body(language)
            } catch is InvalidLink {
                response = try invalidLinkPage(request, context: context, language: language)
            }
            if let languageCookie { response.headers.append(HTTPField(name: .setCookie, value: languageCookie.description)) }
            return response
        }
    }

    /// The path prefix of the public URL (empty, or `/prefix` behind a proxy).
    private var basePath: String {
        var path = backend.configuration.publicURL.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The web front's frame for the page of `token`, whose language links lead back to this page.
    private func layout(_ language: PageLanguage, context: Context) -> WebFrontLayout {
        let token = context.parameters.get("token") ?? ""
        let pagePath = "\(basePath)/share/\(token.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "")"
        return WebFrontLayout(language: language, brand: backend.configuration.brandName, basePath: basePath, signedIn: nil, pagePath: pagePath)
    }

    /// Thrown for a link that is not a live share link, or whose item is gone: answered with ``invalidLinkPage(_:context:language:)``.
    private struct InvalidLink: Error {}

    /// The 404 page of a link that is not valid (any method but `HEAD` gets the page; `HEAD` its headers).
    private func invalidLinkPage(_ request: Request, context: Context, language: PageLanguage) throws -> Response {
        let strings = language.sharePage
        let page = MessagePage(heading: strings.invalidTitle, message: strings.invalidMessage,
                               home: .init(href: basePath + "/", label: language.webFront.myFiles))
        let response = try layout(language, context: context).response("message", page, title: strings.invalidTitle, status: .notFound)
        return request.method == .head ? response.createHeadResponse() : response
    }

    /// A live share link: who made it, what it shows, and the role it can grant now.
    private struct Link {
        var claims: AccessTokenClaims
        var maker: UserRecord
        var itemID: ResourceID
        var isContainer: Bool
        /// `AccessRole.editor` for a ReadWrite link whose maker can still edit, else `AccessRole.viewer`.
        var grants: AccessRole
    }

    /// The link a request names; ``InvalidLink`` for anything not a live share link whose maker may still open the item.
    private func resolve(_ context: Context) async throws -> Link {
        guard let token = context.parameters.get("token"),
              let claims = try? backend.tokens.verify(token, now: backend.configuration.now()),
              case .shareLink(let id, let isContainer, let readWrite) = claims.resource
        else { throw InvalidLink() }
        guard let access = try await backend.access(to: id, isContainer: isContainer, by: claims.userID), let role = access.role else {
            throw InvalidLink()
        }
        return Link(claims: claims, maker: access.user, itemID: id, isContainer: isContainer, grants: readWrite ? min(role, .editor) : .viewer)
    }

    func page(_ request: Request, context: Context, language: PageLanguage) async throws -> Response {
        let link = try await resolve(context)
        let token = context.parameters.get("token") ?? ""
        let strings = language.sharePage
        var page = SharedItemPage(name: "", strings: strings, webFront: language.webFront,
                                  sharedBy: PageText.fill(strings.sharedBy, link.maker.displayName,
                                                          link.grants == .editor ? strings.editable : strings.readOnly))
        try await offerEditing(link, request: request, token: token, strings: strings, on: &page)
        if link.isContainer {
            guard let container = try await backend.store.container(id: link.itemID) else { throw InvalidLink() }
            let children = try await backend.store.children(of: link.itemID)
            page.name = container.name
            page.entries = children.containers.map { child in
                .init(name: child.name, isFolder: true,
                      url: backend.shareLink(user: link.maker.id, item: child.id, isContainer: true, notAfter: link.claims.expiresAt))
            } + children.files.map { file in
                .init(name: file.name, isFolder: false,
                      url: backend.shareLink(user: link.maker.id, item: file.id, isContainer: false, notAfter: link.claims.expiresAt),
                      size: language.size(file.size))
            }
        } else {
            guard let file = try await backend.store.file(id: link.itemID) else { throw InvalidLink() }
            page.name = file.name
            page.file = .init(size: language.size(file.size), modifiedISO: file.modifiedAt.formatted(.iso8601),
                              modified: language.dateTime(file.modifiedAt), download: token + "/content")
        }
        let title = "\(page.name) · \(link.isContainer ? strings.sharedFolder : strings.sharedFile)"
        return try layout(language, context: context).response("shared-item", page, title: title)
    }

    /// For a ReadWrite link: the form that adds the item to the signed-in visitor's "Shared with me", what they
    /// can already do, or an invitation to sign in first. Nothing for a read-only link.
    private func offerEditing(_ link: Link, request: Request, token: String, strings: SharePageStrings,
                              on page: inout SharedItemPage) async throws {
        guard link.grants == .editor else { return }
        guard let (session, visitor) = try await backend.webSession(request) else {
            page.signInHome = backend.configuration.publicURL.absoluteString + "/"
            return
        }
        page.canEditText = PageText.fill(strings.canEdit, SharedWithMe.name)
        page.acceptLabel = PageText.fill(strings.accept, SharedWithMe.name)
        if let role = try await role(of: visitor, on: link), role >= .editor {
            page.canEdit = true
        } else {
            page.accept = .init(action: token + "/accept", csrf: session.csrf)
        }
    }

    /// `POST /share/<token>/accept`: shares the item of a live ReadWrite link with the signed-in visitor as an editor.
    ///
    /// Needs the web session and its CSRF token, from the host's own origin (403 otherwise: a page of
    /// another site cannot add shares);
    /// 404 for a read-only or dead link. Answers `303 See Other` back to the link's page.
    func accept(_ request: Request, context: Context) async throws -> Response {
        let link = try await resolve(context)
        guard link.grants == .editor else { throw WOPIError.notFound("this link does not give editing rights") }
        guard backend.originRefusal(request) == nil, let (session, visitor) = try await backend.webSession(request),
              let fields = try? await AuthorizationServer.formBody(request), session.accepts(csrf: fields["csrf"])
        else { throw WOPIError(.forbidden, "sign in on this host first; the form must come from its own page") }
        if (try await role(of: visitor, on: link)).map({ $0 < .editor }) ?? true {
            _ = try await mapStoreErrors {
                try await backend.store.share(link.itemID, kind: link.isContainer ? .container : .file, with: visitor.id, role: .editor,
                                              now: backend.configuration.now())
            }
            backend.audit(.shareAdded, file: link.itemID, user: visitor.name, details: ["role": AccessRole.editor.rawValue, "via": "link"])
        }
        var headers = HTTPFields()
        headers[.location] = "\(backend.configuration.publicURL.absoluteString)/share/\(context.parameters.get("token") ?? "")"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    /// `user`'s current role on the link's item, `nil` when they cannot open it.
    private func role(of user: UserRecord, on link: Link) async throws -> AccessRole? {
        try await backend.access(to: link.itemID, isContainer: link.isContainer, by: user.id)?.role
    }

    /// `GET /share/<token>/content`: the shared file's body, streamed, as an attachment; for `HEAD`
    /// (`withBody` false) the same headers, the length included, without reading the body.
    func download(_ request: Request, context: Context, withBody: Bool) async throws -> Response {
        let link = try await resolve(context)
        guard !link.isContainer else { throw WOPIError.notFound("a folder has no content to download") }
        guard let file = try await backend.store.file(id: link.itemID) else { throw InvalidLink() }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.contentDisposition] = "attachment; filename*=UTF-8''\(file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentLength] = String(file.size)
        guard withBody else { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        return Response(status: .ok, headers: headers, body: try await backend.responseBody(of: file, logger: context.logger))
    }
}

/// A share link's page (`shared-item.mustache`): a shared file, or a shared folder's entries.
struct SharedItemPage: Sendable {
    var name: String
    var strings: SharePageStrings
    /// The web front's words the page reuses (Download, Folder, This folder is empty).
    var webFront: WebFrontStrings
    /// "Shared by … · read-only", filled.
    var sharedBy: String
    /// For a file: its size, time and download address; `nil` for a folder.
    var file: FileDetails?
    /// For a folder: its folders and files, each with its own link.
    var entries: [Entry] = []
    /// A ReadWrite link opened signed out: where to sign in first.
    var signInHome: String?
    /// A ReadWrite link opened by someone who can already edit the item.
    var canEdit = false
    /// What the page says then, filled.
    var canEditText = ""
    /// A ReadWrite link opened by someone who cannot edit it yet: the form that adds it to their files.
    var accept: Accept?
    /// The form's button, filled.
    var acceptLabel = ""

    /// A shared file's details.
    struct FileDetails: Sendable {
        var size: String
        /// The time in ISO 8601, for `<time datetime>`, and as people of the page's language write it.
        var modifiedISO: String
        var modified: String
        var download: String
    }

    /// One folder or file in a shared folder.
    struct Entry: Sendable {
        var name: String
        var isFolder: Bool
        var url: String
        var size = ""
    }

    /// The form that accepts a ReadWrite link.
    struct Accept: Sendable {
        var action: String
        var csrf: String
    }

    init(name: String, strings: SharePageStrings, webFront: WebFrontStrings, sharedBy: String) {
        self.name = name
        self.strings = strings
        self.webFront = webFront
        self.sharedBy = sharedBy
    }
}
