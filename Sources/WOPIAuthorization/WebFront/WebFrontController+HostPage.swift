import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WOPICore
import WOPIHost

/// `GET /open/<file id>?action=view|edit&client=NAME`: the host page that opens a file in a
/// browser editor (``WebClients``).
///
/// Microsoft's WOPI docs, online/hostpage.rst ("Building a host page"): a full-window iframe and
/// a form, posted into it, that carries `access_token` and `access_token_ttl` (the token's expiry
/// in milliseconds since 1970, UTC) to the action URL; a viewport meta tag; the favicon the
/// discovery names for the app; no caching. The token is a WOPI access token for this user and
/// this file, expiring like every other. The page's one script (`/assets/host-page.js`,
/// ``HostPageScript``) posts the form and speaks PostMessage with the editor.
///
/// Its content security policy lets the form post to and the iframe show the editor's origin and
/// no other; the favicon may come from the origin discovery names for it.
extension WebFrontController {
    /// What `host-page.mustache` shows.
    struct HostPage: Sendable {
        var language: String
        var title: String
        var favIconURL: String?
        var scriptPath: String
        var actionURL: String
        var accessToken: String
        var accessTokenTTL: Int64
        var frameTitle: String
        /// The editor's origin: the script accepts messages from it only.
        var clientOrigin: String
        var folderURL: String
        var fileName: String
    }

    /// `GET /open/<id>`.
    func openInBrowser(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        let strings = language.webFront
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/") }
        guard let clients = backend.configuration.webClients,
              let id = context.parameters.get("id").flatMap(ResourceID.init),
              let access = try await backend.access(to: id, isContainer: false, by: user.id), let file = access.file,
              let role = access.role else {
            return try messagePage(strings.notFound, session: session, user: user, language: language, status: .notFound)
        }
        // view or edit; editnew is for files the editor creates, never an existing one.
        let requested: WebClientActions.Kind = request.uri.queryParameters.get("action") == "edit" ? .edit : .view
        let chosen: WebClients.Client?
        if let name = request.uri.queryParameters.get("client") {
            chosen = await clients.client(named: String(name))
        } else {
            chosen = await clients.firstClient(handling: file.name)
        }
        // A viewer asking to edit gets the view: the token would refuse every save anyway.
        let kind: WebClientActions.Kind = requested != .view && role < .editor ? .view : requested
        guard let client = chosen, let action = client.actions.action(kind, forFileNamed: file.name),
              let actionOrigin = Self.origin(of: action.urlSource) else {
            return try messagePage(strings.noBrowserEditor, session: session, user: user, language: language, status: .notFound)
        }
        let (token, claims) = backend.issueToken(user: user.id, resource: .file(file.id))
        let wopiSrc = backend.wopiSrc(.file(file.id))
        let culture = Self.culture(language)
        let url = ActionURL(template: action.urlSource, wopiSrc: wopiSrc,
                            values: .init(uiLanguage: culture, dataLanguage: culture, hostSessionID: UUID().uuidString))
        let folder = file.ownerID == user.id ? "\(basePath)/folders/\(file.containerID.rawValue)" : basePath + "/"
        let page = HostPage(language: language.rawValue, title: "\(file.name) · \(backend.configuration.brandName)",
                            favIconURL: action.favIconURL, scriptPath: basePath + "/assets/host-page.js", actionURL: url.string,
                            accessToken: token, accessTokenTTL: Int64((claims.expiresAt.timeIntervalSince1970 * 1000).rounded(.down)),
                            frameTitle: PageText.fill(strings.editorFrameTitle, file.name), clientOrigin: actionOrigin,
                            folderURL: folder, fileName: file.name)
        let html = try PageTemplates.bundled.get().render("host-page", page)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        // hostpage.rst: the page must not be cached (it carries a token).
        headers[.cacheControl] = "no-cache, no-store"
        headers[.contentSecurityPolicy] = Self.hostPagePolicy(editorOrigin: actionOrigin, iconOrigin: action.favIconURL.flatMap(Self.origin(of:)))
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Scripts only from this host, the form and the frame only to the editor's origin.
    static func hostPagePolicy(editorOrigin: String, iconOrigin: String?) -> String {
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'\(iconOrigin.map { " " + $0 } ?? ""); "
            + "frame-src \(editorOrigin); form-action \(editorOrigin); frame-ancestors 'none'; base-uri 'none'"
    }

    /// `scheme://host[:port]` of an absolute http(s) URL (RFC 6454 §6.1), with the discovery's placeholders cut off first.
    static func origin(of text: String) -> String? {
        let plain = text.split(separator: "<", maxSplits: 1).first.map(String.init) ?? text
        guard let url = URL(string: plain), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else { return nil }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    /// The culture a browser editor is asked to show (`UI_LLCC`, `DC_LLCC`): the page's language.
    static func culture(_ language: PageLanguage) -> String {
        switch language {
        case .english: "en-US"
        case .german: "de-DE"
        case .simplifiedChinese: "zh-CN"
        }
    }
}
