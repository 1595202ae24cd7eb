import Foundation
import HTTPTypes
import Hummingbird
import WOPICore

/// The pages behind GetShareUrl links (the web front at `/` is ``WebFrontController``).
///
/// `/share/<token>` shows one shared file (name, size, date, download) or a shared folder (its
/// files and folders, each with its own link expiring with the parent's). The token is a signed,
/// expiring, read-only share-link token; WOPI endpoints never accept it, and it stops working
/// when the owner is removed.
struct ShareController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to router: Router<Context>) {
        router.get("share/:token", use: page)
        router.get("share/:token/content", use: download)
    }

    /// The shared item a link names, and the claims it carries; 404 for anything not a live share link.
    private func resolve(_ context: Context) async throws -> (AccessTokenClaims, UserRecord, ResourceID, isContainer: Bool) {
        guard let token = context.parameters.get("token"),
              let claims = try? backend.tokens.verify(token, now: backend.configuration.now()),
              case .shareLink(let id, let isContainer) = claims.resource,
              let user = try await backend.store.user(id: claims.userID)
        else { throw WOPIError.notFound("this link is not valid or has expired") }
        return (claims, user, id, isContainer)
    }

    @Sendable func page(_ request: Request, context: Context) async throws -> Response {
        let (claims, user, id, isContainer) = try await resolve(context)
        if isContainer {
            let container = try await backend.container(id, for: user)
            let children = try await backend.store.children(of: id)
            let links = children.containers.map { child in
                "<li>📁 <a href=\"\(HTMLText.escape(backend.shareLink(user: user.id, item: child.id, isContainer: true, notAfter: claims.expiresAt)))\">\(HTMLText.escape(child.name))</a></li>"
            } + children.files.map { file in
                "<li><a href=\"\(HTMLText.escape(backend.shareLink(user: user.id, item: file.id, isContainer: false, notAfter: claims.expiresAt)))\">\(HTMLText.escape(file.name))</a> <span class=\"muted\">\(Self.size(file.size))</span></li>"
            }
            return HTMLPage.document(title: container.name, body: """
                <h1>\(HTMLText.escape(container.name))</h1><p class="muted">Shared by \(HTMLText.escape(user.displayName)), read-only.</p>\
                <ul>\(links.isEmpty ? "<li class=\"muted\">This folder is empty.</li>" : links.joined())</ul>
                """).response()
        }
        let file = try await backend.file(id, for: user)
        return HTMLPage.document(title: file.name, body: """
            <h1>\(HTMLText.escape(file.name))</h1><p class="muted">Shared by \(HTMLText.escape(user.displayName)), read-only. \
            \(Self.size(file.size)), changed \(HTMLText.escape(file.modifiedAt.formatted(.iso8601)))</p>\
            <a class="button" href="\(HTMLText.escape(context.parameters.get("token") ?? ""))/content">Download</a>
            """).response()
    }

    @Sendable func download(_ request: Request, context: Context) async throws -> Response {
        let (_, user, id, isContainer) = try await resolve(context)
        guard !isContainer else { throw WOPIError.notFound("a folder has no content to download") }
        let file = try await backend.file(id, for: user)
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.contentDisposition] = "attachment; filename*=UTF-8''\(file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: try await backend.blobs.read(file.blobKey, size: file.size))
    }

    private static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}
