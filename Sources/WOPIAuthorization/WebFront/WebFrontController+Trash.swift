import Foundation
import HTTPTypes
import Hummingbird
import WOPICore
import WOPIHost

/// The web front's trash: a delete asks first (a page of its own, so it needs no script), moves the item
/// to the owner's trash and says so with an Undo button; the Trash page lists what is there, each with
/// Restore and Delete forever, and offers to empty it. What cannot be undone asks first too. Every change
/// is a POST carrying the session's CSRF token.
///
/// Routes: `GET /folders|files/<id>/delete` (the confirmation), `POST /folders|files/<id>/delete`,
/// `GET /trash` (`?moved=<id>` adds the notice with Undo), `POST /trash/<id>/restore`,
/// `GET|POST /trash/<id>/delete` (one item for good), `GET|POST /trash/empty` (all of them).
extension WebFrontController {
    func addTrashRoutes(to router: Router<Context>) {
        for (kind, isFolder) in [("folders", true), ("files", false)] {
            router.get("\(kind)/:id/delete") { request, context in
                try await page(request, context) { try await confirmDelete(request, context: context, isFolder: isFolder) }
            }
        }
        router.get("trash") { request, context in try await page(request, context) { try await showTrash(request, context: context) } }
        router.post("trash/:id/restore") { request, context in try await page(request, context) { try await restore(request, context: context) } }
        router.get("trash/:id/delete") { request, context in try await page(request, context) { try await confirmPurge(request, context: context, all: false) } }
        router.post("trash/:id/delete") { request, context in try await page(request, context) { try await purge(request, context: context, all: false) } }
        router.get("trash/empty") { request, context in try await page(request, context) { try await confirmPurge(request, context: context, all: true) } }
        router.post("trash/empty") { request, context in try await page(request, context) { try await purge(request, context: context, all: true) } }
    }

    /// `GET /folders|files/<id>/delete`: "Move … to the Trash?" with the real delete as a POST form.
    func confirmDelete(_ request: Request, context: Context, isFolder: Bool) async throws -> Response {
        let (language, _) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/") }
        var item: (id: ResourceID, name: String, folder: ResourceID)?
        if let id = context.parameters.get("id").flatMap(ResourceID.init) {
            if isFolder, let folder = try await owned({ try await backend.container(id, for: user) }), let parentID = folder.parentID {
                item = (id, folder.name, parentID)
            } else if !isFolder, let file = try await owned({ try await backend.file(id, for: user) }) {
                item = (id, file.name, file.containerID)
            }
        }
        guard let item else { return try messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound) }
        let strings = language.trash
        let page = DeleteConfirmationPage(title: PageText.fill(strings.confirmTitle, item.name), explanation: strings.confirmExplanation,
                                          confirm: strings.confirm, action: "\(basePath)/\(isFolder ? "folders" : "files")/\(item.id.rawValue)/delete",
                                          csrf: session.csrf, cancel: strings.cancel, cancelHref: "\(basePath)/folders/\(item.folder.rawValue)")
        return try layout(language, session: session, user: user, pagePath: page.action).response("trash-confirm", page, title: page.title)
    }

    /// `POST /folders|files/<id>/delete`: a file, or a folder with everything in it, to the owner's trash;
    /// then the Trash page with "Moved to Trash" and Undo.
    func delete(_ request: Request, context: Context, isFolder: Bool) async throws -> Response {
        let post: FormPost
        switch try await formPost(request, context: context) {
        case .success(let value): post = value
        case .failure(let refusal): return refusal.response
        }
        let now = backend.configuration.now()
        if isFolder {
            guard let folder = try await owned({ try await backend.container(post.id, for: post.user) }), let parentID = folder.parentID else { return try notFound(post) }
            do {
                _ = try await backend.store.trashContainer(folder.id, onlyIfEmpty: false, now: now)
            } catch WOPIStoreError.lockConflict {
                return try await folderPage(parentID, post, error: post.language.trash.folderLocked, status: .conflict)
            }
            backend.audit(.containerDeleted, file: folder.id, user: post.user.name, details: ["name": folder.name, "via": "web"])
        } else {
            guard let file = try await owned({ try await backend.file(post.id, for: post.user) }) else { return try notFound(post) }
            do {
                _ = try await backend.store.trashFile(file.id, lock: nil, now: now)
            } catch WOPIStoreError.lockConflict {
                return try await folderPage(file.containerID, post, error: post.language.webFront.fileLocked, status: .conflict)
            }
            backend.audit(.fileDeleted, file: file.id, user: post.user.name, details: ["version": file.versionString, "via": "web"])
        }
        return seeOther("\(basePath)/trash?moved=\(post.id.rawValue)")
    }

    /// `GET /trash`: the user's trashed items, newest first, each with Restore.
    func showTrash(_ request: Request, context: Context) async throws -> Response {
        let (language, languageCookie) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/", cookies: [languageCookie].compactMap { $0 }) }
        let moved = request.uri.queryParameters.get("moved").flatMap(ResourceID.init)
        return try await trashPage(session: session, user: user, language: language, moved: moved, error: nil, status: .ok,
                                   cookies: [languageCookie].compactMap { $0 })
    }

    /// `POST /trash/<id>/restore`: back where it came from (or to My files), then to that folder.
    func restore(_ request: Request, context: Context) async throws -> Response {
        let post: FormPost
        switch try await formPost(request, context: context) {
        case .success(let value): post = value
        case .failure(let refusal): return refusal.response
        }
        let strings = post.language.trash
        // Only the signed-in user's own trash: someone else's id answers as an unknown one.
        guard let item = try await backend.store.trashedItems(ownedBy: post.user.id).first(where: { $0.id == post.id }) else { return try notFound(post) }
        let restore: TrashRestore
        do {
            restore = try await backend.store.restoreFromTrash(item.id, as: nil)
        } catch WOPIStoreError.nameTaken(let name) {
            return try await trashPage(session: post.session, user: post.user, language: post.language, moved: nil,
                                       error: PageText.fill(strings.restoreNameTaken, name), status: .conflict)
        } catch WOPIStoreError.notFound {
            return try notFound(post)
        }
        let toRoot = if case .ownerRoot = restore.destination { true } else { false }
        backend.audit(.trashRestored, file: item.id, user: post.user.name,
                      details: ["kind": item.kind.rawValue, "name": restore.name, "folder": restore.destination.folderID.rawValue,
                                "to_root": String(toRoot), "via": "web"])
        if toRoot {
            return try await folderPage(restore.destination.folderID, post, error: PageText.fill(strings.restoredToRoot, restore.name), status: .ok)
        }
        return seeOther("\(basePath)/folders/\(restore.destination.folderID.rawValue)")
    }

    /// `GET /trash/<id>/delete` and `GET /trash/empty`: "Delete … forever?" or "Empty the Trash?", with the real
    /// removal as a POST form.
    func confirmPurge(_ request: Request, context: Context, all: Bool) async throws -> Response {
        let (language, _) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/") }
        let strings = language.trash
        let page: DeleteConfirmationPage
        let cancelHref = "\(basePath)/trash"
        if all {
            page = DeleteConfirmationPage(title: strings.confirmEmptyTitle, explanation: strings.confirmEmptyExplanation, confirm: strings.emptyTrash,
                                          action: "\(basePath)/trash/empty", csrf: session.csrf, cancel: strings.cancel, cancelHref: cancelHref)
        } else {
            // Only the signed-in user's own trash: someone else's id answers as an unknown one.
            guard let id = context.parameters.get("id").flatMap(ResourceID.init),
                  let item = try await backend.store.trashedItems(ownedBy: user.id).first(where: { $0.id == id }) else {
                return try messagePage(language.webFront.notFound, session: session, user: user, language: language, status: .notFound)
            }
            page = DeleteConfirmationPage(title: PageText.fill(strings.confirmPurgeTitle, item.name), explanation: strings.confirmPurgeExplanation,
                                          confirm: strings.deleteForever, action: "\(basePath)/trash/\(item.id.rawValue)/delete", csrf: session.csrf,
                                          cancel: strings.cancel, cancelHref: cancelHref)
        }
        return try layout(language, session: session, user: user, pagePath: page.action).response("trash-confirm", page, title: page.title)
    }

    /// `POST /trash/<id>/delete` and `POST /trash/empty`: one item of the signed-in user's trash, or all of them,
    /// removed for good with their versions and shares; their bodies go after the grace period an open download
    /// gets. Then the Trash page.
    func purge(_ request: Request, context: Context, all: Bool) async throws -> Response {
        let form: SignedInForm
        switch try await signedInForm(request) {
        case .success(let value): form = value
        case .failure(let refusal): return refusal.response
        }
        let purge: TrashPurge
        if all {
            purge = try await backend.store.emptyTrash(ownedBy: form.user.id, trashedBefore: nil)
        } else {
            guard let id = context.parameters.get("id").flatMap(ResourceID.init) else {
                return try messagePage(form.language.webFront.notFound, session: form.session, user: form.user, language: form.language, status: .notFound)
            }
            do {
                purge = try await backend.store.deleteFromTrash(id, ownedBy: form.user.id)
            } catch WOPIStoreError.notFound {
                return try messagePage(form.language.webFront.notFound, session: form.session, user: form.user, language: form.language, status: .notFound)
            }
        }
        for blob in purge.blobs { backend.retire(blob) }
        for item in purge.removed {
            backend.audit(.trashPurged, file: item.id, user: form.user.name,
                          details: ["kind": item.kind.rawValue, "name": item.name, "reason": all ? "emptied" : "deleted", "via": "web"])
        }
        return seeOther("\(basePath)/trash")
    }

    func trashPage(session: WebSession, user: UserRecord, language: PageLanguage, moved: ResourceID?, error: String?,
                   status: HTTPResponse.Status, cookies: [Cookie] = []) async throws -> Response {
        let items = try await backend.store.trashedItems(ownedBy: user.id)
        let page = TrashPage(language: language, items: items, moved: items.first { $0.id == moved },
                             csrf: session.csrf, basePath: basePath, error: error)
        return try layout(language, session: session, user: user, pagePath: "\(basePath)/trash")
            .response("trash", page, title: language.trash.trash, status: status, extraHeaders: Self.cookieHeaders(cookies))
    }
}

/// "Move … to the Trash?", "Delete … forever?" or "Empty the Trash?" (`trash-confirm.mustache`): the second step
/// of a delete, a POST form.
struct DeleteConfirmationPage: Sendable {
    var title: String
    var explanation: String
    /// The label of the button that does it.
    var confirm: String
    var action: String
    var csrf: String
    var cancel: String
    var cancelHref: String
}

/// The Trash page (`trash.mustache`): the notice after a delete, with Undo, and the items with Restore.
struct TrashPage: Sendable {
    var strings: TrashStrings
    var homeHref: String
    var csrf: String
    var error: String?
    /// "Moved to Trash: …" with its Undo form, right after a delete.
    var notice: Notice?
    var rows: [Row]
    /// The confirmation page of "Empty Trash", when there is something to empty.
    var emptyHref: String?

    struct Notice: Sendable {
        var text: String
        var restoreAction: String
    }

    struct Row: Sendable {
        var name: String
        var kind: String
        var isFolder: Bool
        var meta: String
        var restoreAction: String
        /// The confirmation page of "Delete forever".
        var purgeHref: String
    }

    init(language: PageLanguage, items: [TrashedItem], moved: TrashedItem?, csrf: String, basePath: String, error: String?) {
        let strings = language.trash
        self.strings = strings
        self.homeHref = basePath + "/"
        self.csrf = csrf
        self.error = error
        self.notice = moved.map { Notice(text: PageText.fill(strings.moved, $0.name), restoreAction: "\(basePath)/trash/\($0.id.rawValue)/restore") }
        self.rows = items.map { item in
            let deleted = PageText.fill(strings.deletedAt, FolderPage.time(item.trashedAt))
            return Row(name: item.name, kind: item.kind == .container ? "folder" : "file", isFolder: item.kind == .container,
                       meta: item.kind == .container ? "\(language.webFront.folder) · \(deleted)" : "\(language.size(item.size)) · \(deleted)",
                       restoreAction: "\(basePath)/trash/\(item.id.rawValue)/restore", purgeHref: "\(basePath)/trash/\(item.id.rawValue)/delete")
        }
        self.emptyHref = items.isEmpty ? nil : "\(basePath)/trash/empty"
    }
}
