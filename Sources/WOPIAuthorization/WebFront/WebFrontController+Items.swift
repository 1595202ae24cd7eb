import Foundation
import HTTPTypes
import Hummingbird
import WOPICore
import WOPIHost

/// Creating, renaming, deleting and sharing folders and files from the web front.
extension WebFrontController {
    /// A signed-in form post: the session, user and language, the item id from the path, and the
    /// form fields, or the response that refuses it (signed out, a missing or wrong CSRF token, or
    /// sent by another site or origin).
    struct FormPost {
        var session: WebSession
        var user: UserRecord
        var language: PageLanguage
        var id: ResourceID
        var fields: FormFields
    }

    func formPost(_ request: Request, context: Context) async throws -> Result<FormPost, Refusal> {
        let form: SignedInForm
        switch try await signedInForm(request) {
        case .success(let value): form = value
        case .failure(let refusal): return .failure(refusal)
        }
        guard let id = context.parameters.get("id").flatMap(ResourceID.init) else {
            return .failure(Refusal(response: try messagePage(form.language.webFront.notFound, session: form.session, user: form.user,
                                                              language: form.language, status: .notFound)))
        }
        return .success(FormPost(session: form.session, user: form.user, language: form.language, id: id, fields: form.fields))
    }

    /// A signed-in form post about no item in particular: ``FormPost`` without the id.
    struct SignedInForm {
        var session: WebSession
        var user: UserRecord
        var language: PageLanguage
        var fields: FormFields
    }

    func signedInForm(_ request: Request) async throws -> Result<SignedInForm, Refusal> {
        let (language, _) = Self.language(request)
        guard let (session, user) = try await backend.webSession(request) else { return .failure(Refusal(response: seeOther(basePath + "/"))) }
        guard backend.originRefusal(request) == nil, let fields = try? await AuthorizationServer.formBody(request), session.accepts(csrf: fields["csrf"]) else {
            return .failure(Refusal(response: try messagePage(language.webFront.formExpired, session: session, user: user, language: language,
                                                              status: .forbidden)))
        }
        return .success(SignedInForm(session: session, user: user, language: language, fields: fields))
    }

    /// A response that ends a request early.
    struct Refusal: Error {
        var response: Response
    }

    /// `POST /folders/<id>/create`: a new folder named `name`.
    func createFolder(_ request: Request, context: Context) async throws -> Response {
        let post: FormPost
        switch try await formPost(request, context: context) {
        case .success(let value): post = value
        case .failure(let refusal): return refusal.response
        }
        let strings = post.language.webFront
        guard let parent = try await owned({ try await backend.container(post.id, for: post.user) }) else { return try notFound(post) }
        let name = (post.fields["name"] ?? "").trimmingCharacters(in: .whitespaces)
        if let problem = NameRules.problem(with: name) {
            return try await folderPage(parent.id, post, error: PageText.fill(strings.badName, post.language.nameProblem(problem)), status: .badRequest)
        }
        do {
            _ = try await backend.store.createContainer(named: name, in: parent.id)
        } catch WOPIStoreError.nameTaken {
            return try await folderPage(parent.id, post, error: PageText.fill(strings.nameTaken, name), status: .conflict)
        }
        return seeOther("\(basePath)/folders/\(parent.id.rawValue)")
    }

    /// `POST /folders|files/<id>/rename`: the new name in `name`.
    func rename(_ request: Request, context: Context, isFolder: Bool) async throws -> Response {
        let post: FormPost
        switch try await formPost(request, context: context) {
        case .success(let value): post = value
        case .failure(let refusal): return refusal.response
        }
        let strings = post.language.webFront
        let name = (post.fields["name"] ?? "").trimmingCharacters(in: .whitespaces)
        if isFolder {
            guard let folder = try await owned({ try await backend.container(post.id, for: post.user) }), let parentID = folder.parentID else { return try notFound(post) }
            if let problem = NameRules.problem(with: name) {
                return try await folderPage(parentID, post, error: PageText.fill(strings.badName, post.language.nameProblem(problem)), status: .badRequest)
            }
            do { _ = try await backend.store.renameContainer(folder.id, to: name) } catch WOPIStoreError.nameTaken {
                return try await folderPage(parentID, post, error: PageText.fill(strings.nameTaken, name), status: .conflict)
            }
            return seeOther("\(basePath)/folders/\(parentID.rawValue)")
        }
        guard let file = try await owned({ try await backend.file(post.id, for: post.user) }) else { return try notFound(post) }
        if let problem = NameRules.fileNameProblem(name) {
            return try await folderPage(file.containerID, post, error: PageText.fill(strings.badName, post.language.nameProblem(problem)), status: .badRequest)
        }
        if name != file.name, let other = try await backend.store.file(named: name, in: file.containerID), other.id != file.id {
            return try await folderPage(file.containerID, post, error: PageText.fill(strings.nameTaken, name), status: .conflict)
        }
        do { _ = try await backend.store.renameFile(file.id, to: name, lock: nil, now: backend.configuration.now()) } catch WOPIStoreError.nameTaken {
            return try await folderPage(file.containerID, post, error: PageText.fill(strings.nameTaken, name), status: .conflict)
        } catch WOPIStoreError.lockConflict {
            return try await folderPage(file.containerID, post, error: strings.fileLocked, status: .conflict)
        }
        return seeOther("\(basePath)/folders/\(file.containerID.rawValue)")
    }

    /// `POST /folders|files/<id>/share`: a page with a read-only share link (the `/share/<token>` pages).
    func share(_ request: Request, context: Context, isFolder: Bool) async throws -> Response {
        let post: FormPost
        switch try await formPost(request, context: context) {
        case .success(let value): post = value
        case .failure(let refusal): return refusal.response
        }
        let strings = post.language.webFront
        let name: String
        let parentID: ResourceID
        if isFolder {
            guard let folder = try await owned({ try await backend.container(post.id, for: post.user) }) else { return try notFound(post) }
            name = folder.parentID == nil ? strings.myFiles : folder.name
            parentID = folder.parentID ?? folder.id
        } else {
            guard let file = try await owned({ try await backend.file(post.id, for: post.user) }) else { return try notFound(post) }
            name = file.name
            parentID = file.containerID
        }
        let expiry = backend.configuration.now().addingTimeInterval(backend.configuration.shareLinkLifetime)
        let link = backend.shareLink(user: post.user.id, item: post.id, isContainer: isFolder)
        backend.audit(.shareLinkCreated, file: post.id, user: post.user.name, details: ["kind": isFolder ? "container" : "file", "via": "web"])
        let page = ShareLinkPage(strings: strings, explanation: PageText.fill(strings.shareExplanation, name, post.language.dateTime(expiry)),
                                 link: link,
                                 backHref: "\(basePath)/folders/\(parentID.rawValue)")
        return try layout(post.language, session: post.session, user: post.user, pagePath: "\(basePath)/folders/\(parentID.rawValue)")
            .response("share-link", page, title: strings.shareTitle)
    }

    func folderPage(_ id: ResourceID, _ post: FormPost, error: String, status: HTTPResponse.Status) async throws -> Response {
        try await folderPage(id, session: post.session, user: post.user, language: post.language, error: error, status: status)
    }

    func notFound(_ post: FormPost) throws -> Response {
        try messagePage(post.language.webFront.notFound, session: post.session, user: post.user, language: post.language, status: .notFound)
    }
}

/// The page that hands out a share link (`share-link.mustache`).
struct ShareLinkPage: Sendable {
    var strings: WebFrontStrings
    /// "Anyone with this link can view … until …", filled.
    var explanation: String
    var link: String
    var backHref: String
}
