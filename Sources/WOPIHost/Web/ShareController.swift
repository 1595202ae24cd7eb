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
        router.get("share/:token", use: page)
        router.get("share/:token/content", use: download)
        router.post("share/:token/accept", use: accept)
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

    @Sendable func page(_ request: Request, context: Context) async throws -> Response {
        let link = try await resolve(context)
        let token = context.parameters.get("token") ?? ""
        let mode = link.grants == .editor ? "can be edited by anyone signed in who adds it" : "read-only"
        let offer = try await editOffer(link, request: request, token: token)
        if link.isContainer {
            guard let container = try await backend.store.container(id: link.itemID) else { throw WOPIError.notFound("this link is not valid or has expired") }
            let children = try await backend.store.children(of: link.itemID)
            let links = children.containers.map { child in
                "<li>📁 <a href=\"\(HTMLText.escape(backend.shareLink(user: link.maker.id, item: child.id, isContainer: true, notAfter: link.claims.expiresAt)))\">\(HTMLText.escape(child.name))</a></li>"
            } + children.files.map { file in
                "<li><a href=\"\(HTMLText.escape(backend.shareLink(user: link.maker.id, item: file.id, isContainer: false, notAfter: link.claims.expiresAt)))\">\(HTMLText.escape(file.name))</a> <span class=\"muted\">\(Self.size(file.size))</span></li>"
            }
            return HTMLPage.document(title: container.name, body: """
                <h1>\(HTMLText.escape(container.name))</h1><p class="muted">Shared by \(HTMLText.escape(link.maker.displayName)), \(mode).</p>\
                \(offer)<ul>\(links.isEmpty ? "<li class=\"muted\">This folder is empty.</li>" : links.joined())</ul>
                """).response()
        }
        guard let file = try await backend.store.file(id: link.itemID) else { throw WOPIError.notFound("this link is not valid or has expired") }
        return HTMLPage.document(title: file.name, body: """
            <h1>\(HTMLText.escape(file.name))</h1><p class="muted">Shared by \(HTMLText.escape(link.maker.displayName)), \(mode). \
            \(Self.size(file.size)), changed \(HTMLText.escape(file.modifiedAt.formatted(.iso8601)))</p>\
            \(offer)<a class="button" href="\(HTMLText.escape(token))/content">Download</a>
            """).response()
    }

    /// For a ReadWrite link: the form that adds the item to the signed-in visitor's "Shared with me", what they
    /// can already do, or an invitation to sign in first. Empty for a read-only link.
    private func editOffer(_ link: Link, request: Request, token: String) async throws -> String {
        guard link.grants == .editor else { return "" }
        guard let (session, visitor) = try await backend.webSession(request) else {
            return "<p>Sign in at <a href=\"\(HTMLText.escape(backend.configuration.publicURL.absoluteString))/\">your files</a>, then open this link again to edit it.</p>"
        }
        if let role = try await role(of: visitor, on: link), role >= .editor {
            return "<p class=\"notice\">You can edit this: it is in your files or in “\(SharedWithMe.name)”.</p>"
        }
        return """
            <form method="post" action="\(HTMLText.escape(token))/accept"><input type="hidden" name="csrf" value="\(HTMLText.escape(session.csrf))">\
            <button type="submit">Add to “\(SharedWithMe.name)” and edit</button></form>
            """
    }

    /// `POST /share/<token>/accept`: shares the item of a live ReadWrite link with the signed-in visitor as an editor.
    ///
    /// Needs the web session and its CSRF token (403 otherwise: a page of another site cannot add shares);
    /// 404 for a read-only or dead link. Answers `303 See Other` back to the link's page.
    @Sendable func accept(_ request: Request, context: Context) async throws -> Response {
        let link = try await resolve(context)
        guard link.grants == .editor else { throw WOPIError.notFound("this link does not give editing rights") }
        guard let (session, visitor) = try await backend.webSession(request),
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

    @Sendable func download(_ request: Request, context: Context) async throws -> Response {
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
