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

    private func resolve(_ request: Request, _ context: Context) async throws -> (ContainerRecord, AccessTokenClaims) {
        guard let id = ResourceID(context.parameters.get("id") ?? "") else { throw WOPIError.notFound("no such container id") }
        let (claims, user) = try await backend.authorize(request, .container(id))
        return (try await backend.container(id, for: user), claims)
    }


    @Sendable func checkContainerInfo(_ request: Request, context: Context) async throws -> Response {
        let (container, _) = try await resolve(request, context)
        return try WOPIJSON.response(ContainerInfo(container))
    }

    @Sendable func enumerateChildren(_ request: Request, context: Context) async throws -> Response {
        let (container, claims) = try await resolve(request, context)
        return try enumeratedChildren(of: container, claims: claims, request: request) // issue 10: streamed, a page at a time
    }

    @Sendable func enumerateAncestors(_ request: Request, context: Context) async throws -> Response {
        let (container, claims) = try await resolve(request, context)
        let ancestors = try await backend.store.containerPath(to: container.id).dropLast()
        return try WOPIJSON.response(["AncestorsWithRootFirst": ancestors.map { NamedURL(name: $0.name, url: backend.url(.container($0.id), for: claims)) }])
    }

    @Sendable func getEcosystem(_ request: Request, context: Context) async throws -> Response {
        let (_, claims) = try await resolve(request, context)
        return try WOPIJSON.response(["Url": backend.url(.ecosystem, for: claims)])
    }

    @Sendable func override(_ request: Request, context: Context) async throws -> Response {
        let (container, claims) = try await resolve(request, context)
        guard let operation = try request.headers.single(.wopiOverride) else { throw WOPIError.badRequest("missing X-WOPI-Override") }
        switch operation {
        case "CREATE_CHILD_CONTAINER": return try await createChildContainer(container, claims, request)
        case "CREATE_CHILD_FILE": return try await createChildFile(container, claims, request)
        case "DELETE_CONTAINER", "DELETE":
            try await mapStoreErrors { try await backend.store.deleteContainer(container.id) }
            return Response(status: .ok)
        case "RENAME_CONTAINER":
            guard let header = try request.headers.single(.wopiRequestedName) else { throw WOPIError.badRequest("missing X-WOPI-RequestedName") }
            let name = try NameRules.decodeHeader(header)
            if let problem = NameRules.problem(with: name) {
                var headers = HTTPFields()
                headers[.wopiInvalidContainerNameError] = problem
                throw WOPIError(.badRequest, problem, headers: headers)
            }
            let renamed = try await mapStoreErrors { try await backend.store.renameContainer(container.id, to: name) }
            return try WOPIJSON.response(["Name": renamed.name])
        case "GET_SHARE_URL":
            return try FilesController<Context>(backend: backend).shareURL(request, claims: claims, item: container.id, isContainer: true)
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
                headers[.wopiInvalidContainerNameError] = problem
                throw WOPIError(.badRequest, problem, headers: headers)
            }
            name = exact
        }
        let created = try await mapStoreErrors { try await backend.store.createContainer(named: name, in: parent.id) }
        return try WOPIJSON.response(ContainerPointerResponse(containerPointer: NamedURL(name: created.name, url: backend.url(.container(created.id), for: claims)),
                                                              containerInfo: ContainerInfo(created)))
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
