import Foundation
import Hummingbird
import WOPICore

/// The Containers endpoint, `/wopi/containers/<id>` (docs/rest/src/containers/).
struct ContainersController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("containers/:id", use: checkContainerInfo)
        group.get("containers/:id/children", use: enumerateChildren)
        group.get("containers/:id/ancestry", use: enumerateAncestors)
        group.get("containers/:id/ecosystem_pointer", use: getEcosystem)
        group.post("containers/:id", use: override)
    }

    /// The container a request names, its caller and their role: one token check and one store read.
    private func resolve(_ request: Request, _ context: Context) async throws -> AuthorizedContainer {
        guard let id = ResourceID(context.parameters.get("id") ?? "") else { throw WOPIError.notFound("no such container id") }
        return try await backend.authorizeContainer(request, id)
    }

    @Sendable func checkContainerInfo(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        return try WOPIJSON.response(ContainerInfo(access.container, role: access.role, isSharedWithMe: access.isSharedWithMe))
    }

    @Sendable func enumerateChildren(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        if access.isSharedWithMe { return try await sharedWithMeChildren(access, request: request) }
        var leading: [NamedURL] = []
        if access.container.id == access.user.rootContainerID, !(try await backend.store.shares(with: access.user.id)).isEmpty {
            leading = [NamedURL(name: SharedWithMe.name, url: backend.url(.container(SharedWithMe.id(for: access.user.id)), for: access.claims))]
        }
        return try enumeratedChildren(of: access.container, claims: access.claims, request: request, leading: leading) // streamed
    }

    /// The children of a user's "Shared with me": the files and containers shared with them, each list by name.
    /// One entry per share, so the list is as long as what was shared, not as a folder: no need to stream it.
    private func sharedWithMeChildren(_ access: AuthorizedContainer, request: Request) async throws -> Response {
        var containers: [ContainerRecord] = []
        var files: [FileRecord] = []
        for share in try await backend.store.shares(with: access.user.id) {
            switch share.itemKind {
            case .container: if let container = try await backend.store.container(id: share.itemID) { containers.append(container) }
            case .file: if let file = try await backend.store.file(id: share.itemID) { files.append(file) }
            }
        }
        if let extensions = try Self.extensionFilter(request) { files = files.filter { extensions.contains($0.fileExtension) } }
        containers.sort { $0.name.lowercased() < $1.name.lowercased() }
        files.sort { $0.name.lowercased() < $1.name.lowercased() }
        let claims = access.claims
        return try WOPIJSON.response(ChildrenResponse(
            childContainers: containers.map { NamedURL(name: $0.name, url: backend.url(.container($0.id), for: claims)) },
            childFiles: files.map {
                ChildFile(name: $0.name, url: backend.url(.file($0.id), for: claims), size: $0.size, version: $0.versionString,
                          lastModifiedTime: $0.modifiedAt.wopiTimestamp)
            }))
    }

    @Sendable func enumerateAncestors(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        let claims = access.claims
        let ancestors = access.isSharedWithMe
            ? try await backend.sharedPrefix(for: access.user).dropLast()
            : try await backend.path(to: access.container.id, for: access.user).dropLast()
        return try WOPIJSON.response(["AncestorsWithRootFirst": ancestors.map { NamedURL(name: $0.name, url: backend.url(.container($0.id), for: claims)) }])
    }

    @Sendable func getEcosystem(_ request: Request, context: Context) async throws -> Response {
        let claims = try await resolve(request, context).claims
        return try WOPIJSON.response(["Url": backend.url(.ecosystem, for: claims)])
    }

    @Sendable func override(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        let (container, claims) = (access.container, access.claims)
        guard let operation = try request.headers.single(.wopiOverride) else { throw WOPIError.badRequest("missing X-WOPI-Override") }
        let name = WOPIOperation(method: "POST", path: "/wopi/containers/\(container.id)", override: operation).name
        // "Shared with me" is stored nowhere: nobody creates in it, renames, deletes or shares it.
        if access.isSharedWithMe, name != "Unknown" { throw WOPIError.notFound("\(SharedWithMe.name) cannot be changed or shared") }
        try backend.permit(name, role: access.role)
        switch operation {
        case "CREATE_CHILD_CONTAINER": return try await createChildContainer(container, claims, request)
        case "CREATE_CHILD_FILE": return try await createChildFile(container, claims, request)
        case "DELETE_CONTAINER", "DELETE":
            // WOPI deletes only empty containers (409 otherwise); the deleted one goes to the owner's trash.
            _ = try await mapStoreErrors { try await backend.store.trashContainer(container.id, onlyIfEmpty: true, now: backend.configuration.now()) }
            backend.audit(.containerDeleted, file: container.id, details: ["name": container.name, "via": "wopi"])
            return Response(status: .ok)
        case "RENAME_CONTAINER":
            guard let header = try request.headers.single(.wopiRequestedName) else { throw WOPIError.badRequest("missing X-WOPI-RequestedName") }
            let name = try NameRules.decodeHeader(header)
            if let problem = NameRules.problem(with: name) {
                var headers = HTTPFields()
                headers[.wopiInvalidContainerNameError] = problem.description
                throw WOPIError(.badRequest, problem.description, headers: headers)
            }
            let renamed = try await mapStoreErrors { try await backend.store.renameContainer(container.id, to: name) }
            return try WOPIJSON.response(["Name": renamed.name])
        case "GET_SHARE_URL":
            return try FilesController<Context>(backend: backend).shareURL(request, claims: claims, role: access.role, item: container.id, isContainer: true)
        default:
            throw WOPIError.notImplemented("unknown X-WOPI-Override '\(operation.prefix(64))'")
        }
    }

    private func createChildContainer(_ parent: ContainerRecord, _ claims: AccessTokenClaims, _ request: Request) async throws -> Response {
        let name: String
        switch try RequestedTarget(request, operation: "CreateChildContainer") {
        case .suggested(let proposed):
            name = try await backend.unusedContainerName(like: NameRules.sanitized(proposed), in: parent.id)
        case .exact(let exact):
            if let problem = NameRules.problem(with: exact) {
                var headers = HTTPFields()
                headers[.wopiInvalidContainerNameError] = problem.description
                throw WOPIError(.badRequest, problem.description, headers: headers)
            }
            name = exact
        }
        let created = try await mapStoreErrors { try await backend.store.createContainer(named: name, in: parent.id) }
        return try WOPIJSON.response(ContainerPointerResponse(containerPointer: NamedURL(name: created.name, url: backend.url(.container(created.id), for: claims)),
                                                              containerInfo: ContainerInfo(created, role: created.ownerID == claims.userID ? .owner : .editor)))
    }

    private func createChildFile(_ parent: ContainerRecord, _ claims: AccessTokenClaims, _ request: Request) async throws -> Response {
        let files = FilesController<Context>(backend: backend)
        let target = try RequestedTarget(request, operation: "CreateChildFile")
        let (name, overwrite) = try await files.fileName(for: target, overwrite: request, in: parent.id, stemForExtension: "New document")
        // CreateChildFile.rst: the new file is empty; the client writes it with PutFile.
        let created = try await files.createFile(named: name, in: parent.id, body: RequestBody(buffer: ByteBuffer()),
                                                 replacing: overwrite, retryWithNewName: target.isSuggested)
        return try WOPIJSON.response(NewFileResponse(name: created.name, url: backend.url(.file(created.id), for: claims)))
    }
}
