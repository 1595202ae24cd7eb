import Foundation
import HTTPTypes
import Hummingbird
import WOPICore

/// The pages behind GetShareUrl links (the web front at `/` is ``WebFrontController``).
///
/// `/share/<token>` shows one shared file (name, size, date, download) or a shared folder (its
/// files and folders, each with its own link expiring with the parent's). The token is a signed,
/// expiring share-link token; WOPI endpoints never accept it. It works while its maker may still
/// open the item, and never grants more than the maker's role at the time it is used.
///
/// A `ReadWrite` link also offers a signed-in visitor (the web front's session) a form,
/// `POST /share/<token>/accept`, that shares the item with them as an editor: it then appears in their
/// "Shared with me" and every WOPI operation treats them as its editor, until the owner removes the share.
struct ShareController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to router: Router<Context>) {
        router.get("share/:token") { request, context in try await guarded(request, context) { try await page(request, context: context) } }
        router.get("share/:token/content") { request, context in
            try await guarded(request, context) { try await download(request, context: context) }
        }
        router.post("share/:token/accept") { request, context in try await guarded(request, context) { try await accept(request, context: context) } }
    }

    /// `body`'s answer, or the 503 page when the store fails under it (these pages are in English).
    private func guarded(_ request: Request, _ context: Context, _ body: () async throws -> Response) async throws -> Response {
        var basePath = backend.configuration.publicURL.path
        while basePath.hasSuffix("/") { basePath.removeLast() }
        return try await PageFailure.guarding(request, logger: context.logger, language: .english, brand: backend.configuration.brandName,
                                              basePath: basePath, body)
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

    /// The link a request names; 404 for anything not a live share link whose maker may still open the item.
    private func resolve(_ context: Context) async throws -> Link {
        guard let token = context.parameters.get("token"),
              let claims = try? backend.tokens.verify(token, now: backend.configuration.now()),
              case .shareLink(let id, let isContainer, let readWrite) = claims.resource
        else { throw WOPIError.notFound("this link is not valid or has expired") }
        guard let access = try await backend.access(to: id, isContainer: isContainer, by: claims.userID), let role = access.role else {
            throw WOPIError.notFound("this link is not valid or has expired")
        }
        return Link(claims: claims, maker: access.user, itemID: id, isContainer: isContainer, grants: readWrite ? min(role, .editor) : .viewer)
    }

    func page(_ request: Request, context: Context) async throws -> Response {
        let link = try await resolve(context)
        let token = context.parameters.get("token") ?? ""
        var page = SharedItemPage(name: "", maker: link.maker.displayName,
                                  mode: link.grants == .editor ? "can be edited by anyone signed in who adds it" : "read-only",
                                  sharedWithMe: SharedWithMe.name)
        try await offerEditing(link, request: request, token: token, on: &page)
        if link.isContainer {
            guard let container = try await backend.store.container(id: link.itemID) else { throw WOPIError.notFound("this link is not valid or has expired") }
            let children = try await backend.store.children(of: link.itemID)
            page.name = container.name
            page.entries = children.containers.map { child in
                .init(name: child.name, isFolder: true,
                      url: backend.shareLink(user: link.maker.id, item: child.id, isContainer: true, notAfter: link.claims.expiresAt))
            } + children.files.map { file in
                .init(name: file.name, isFolder: false,
                      url: backend.shareLink(user: link.maker.id, item: file.id, isContainer: false, notAfter: link.claims.expiresAt),
                      size: Self.size(file.size))
            }
        } else {
            guard let file = try await backend.store.file(id: link.itemID) else { throw WOPIError.notFound("this link is not valid or has expired") }
            page.name = file.name
            page.file = .init(size: Self.size(file.size), modified: file.modifiedAt.formatted(.iso8601), download: token + "/content")
        }
        return try PageLayout(language: "en", title: page.name).response("shared-item", page)
    }

    /// For a ReadWrite link: the form that adds the item to the signed-in visitor's "Shared with me", what they
    /// can already do, or an invitation to sign in first. Nothing for a read-only link.
    private func offerEditing(_ link: Link, request: Request, token: String, on page: inout SharedItemPage) async throws {
        guard link.grants == .editor else { return }
        guard let (session, visitor) = try await backend.webSession(request) else {
            page.signInHome = backend.configuration.publicURL.absoluteString + "/"
            return
        }
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

    func download(_ request: Request, context: Context) async throws -> Response {
        let link = try await resolve(context)
        guard !link.isContainer else { throw WOPIError.notFound("a folder has no content to download") }
        guard let file = try await backend.store.file(id: link.itemID) else { throw WOPIError.notFound("this link is not valid or has expired") }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.contentDisposition] = "attachment; filename*=UTF-8''\(file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(blob: try await backend.blobs.read(file.blobKey, size: file.size)))
    }

    private static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}

/// A share link's page (`shared-item.mustache`): a shared file, or a shared folder's entries.
struct SharedItemPage: Sendable {
    var name: String
    /// Who made the link (display name).
    var maker: String
    /// What the link allows, in words.
    var mode: String
    var sharedWithMe: String
    /// For a file: its size, time and download address; `nil` for a folder.
    var file: FileDetails?
    /// For a folder: its folders and files, each with its own link.
    var entries: [Entry] = []
    /// A ReadWrite link opened signed out: where to sign in first.
    var signInHome: String?
    /// A ReadWrite link opened by someone who can already edit the item.
    var canEdit = false
    /// A ReadWrite link opened by someone who cannot edit it yet: the form that adds it to their files.
    var accept: Accept?

    /// A shared file's details.
    struct FileDetails: Sendable {
        var size: String
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

    init(name: String, maker: String, mode: String, sharedWithMe: String) {
        self.name = name
        self.maker = maker
        self.mode = mode
        self.sharedWithMe = sharedWithMe
    }
}
