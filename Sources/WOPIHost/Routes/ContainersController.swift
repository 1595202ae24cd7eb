import Foundation
import Hummingbird
import WOPICore

/// The Containers endpoint, `/wopi/containers/<id>` (docs/rest/src/containers/).
struct ContainersController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    /// This host has no education or business licensing; both values are the same for every
    /// container and file, which keeps CheckFileInfo equal to its parent container as iOS requires.
    static var isEduUser: Bool { false }
    static var licenseCheckForEditIsEnabled: Bool { false }

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

    static func info(_ container: ContainerRecord) -> ContainerInfo {
        // A user's root cannot be deleted (every file must keep a home), but it can be renamed.
        ContainerInfo(name: container.name, isEduUser: isEduUser, licenseCheckForEditIsEnabled: licenseCheckForEditIsEnabled,
                      userCanDelete: container.parentID != nil, userCanRename: true)
    }

    @Sendable func checkContainerInfo(_ request: Request, context: Context) async throws -> Response {
        let (container, _) = try await resolve(request, context)
        return try WOPIJSON.response(Self.info(container))
    }

    @Sendable func enumerateChildren(_ request: Request, context: Context) async throws -> Response {
        let (container, claims) = try await resolve(request, context)
        let children = try await backend.store.children(of: container.id)
        var files = children.files
        if let filter = try request.headers.single(.wopiFileExtensionFilterList) {
            let extensions = Set(filter.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            files = files.filter { extensions.contains($0.fileExtension) }
        }
        return try WOPIJSON.response(ChildrenResponse(
            childContainers: children.containers.map { NamedURL(name: $0.name, url: backend.url(.container($0.id), for: claims)) },
            childFiles: files.map {
                ChildFile(name: $0.name, url: backend.url(.file($0.id), for: claims), size: $0.size, version: $0.versionString,
                          lastModifiedTime: $0.modifiedAt.wopiTimestamp)
            }))
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
        switch (try request.headers.single(.wopiSuggestedTarget), try request.headers.single(.wopiRelativeTarget)) {
        case (let suggested?, nil):
            name = try await backend.unusedContainerName(like: NameRules.sanitized(try NameRules.decodeHeader(suggested)), in: parent.id)
        case (nil, let relative?):
            name = try NameRules.decodeHeader(relative)
            if let problem = NameRules.problem(with: name) {
                var headers = HTTPFields()
                headers[.wopiInvalidContainerNameError] = problem
                throw WOPIError(.badRequest, problem, headers: headers)
            }
        case (nil, nil): throw WOPIError.badRequest("CreateChildContainer needs X-WOPI-SuggestedTarget or X-WOPI-RelativeTarget")
        case (_?, _?): throw WOPIError.notImplemented("X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget are mutually exclusive")
        }
        let created = try await mapStoreErrors { try await backend.store.createContainer(named: name, in: parent.id) }
        return try WOPIJSON.response(ContainerPointerResponse(containerPointer: NamedURL(name: created.name, url: backend.url(.container(created.id), for: claims)),
                                             containerInfo: Self.info(created)))
    }

    private func createChildFile(_ parent: ContainerRecord, _ claims: AccessTokenClaims, _ request: Request) async throws -> Response {
        let files = FilesController<Context>(backend: backend)
        let name: String
        var overwrite = false
        switch (try request.headers.single(.wopiSuggestedTarget), try request.headers.single(.wopiRelativeTarget)) {
        case (let suggested?, nil):
            var proposed = try NameRules.decodeHeader(suggested)
            if proposed.hasPrefix(".") { proposed = "New document" + proposed }
            name = try await backend.unusedFileName(like: NameRules.sanitized(proposed), in: parent.id)
        case (nil, let relative?):
            name = try NameRules.decodeHeader(relative)
            if let problem = NameRules.fileNameProblem(name) {
                var headers = HTTPFields()
                headers[.wopiInvalidFileNameError] = problem
                throw WOPIError(.badRequest, problem, headers: headers)
            }
            overwrite = try request.headers.single(.wopiOverwriteRelativeTarget)?.lowercased() == "true"
            if let existing = try await backend.store.file(named: name, in: parent.id) {
                guard overwrite else {
                    var headers = HTTPFields()
                    headers[.wopiValidRelativeTarget] = UTF7.encode(try await backend.unusedFileName(like: name, in: parent.id))
                    throw WOPIError(.conflict, "a file named '\(name)' already exists", headers: headers)
                }
                if let held = existing.activeLock(at: backend.configuration.now()) {
                    throw WOPIError.lockConflict(currentLock: held.value, reason: "the target file is locked")
                }
            }
        case (nil, nil): throw WOPIError.badRequest("CreateChildFile needs X-WOPI-SuggestedTarget or X-WOPI-RelativeTarget")
        case (_?, _?): throw WOPIError.notImplemented("X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget are mutually exclusive")
        }
        // CreateChildFile.rst: the new file is empty; the client writes it with PutFile.
        let created = try await files.createFile(named: name, in: parent.id, body: RequestBody(buffer: ByteBuffer()),
                                                 replacing: overwrite, retryWithNewName: !overwrite)
        return try WOPIJSON.response(NewFileResponse(name: created.name, url: backend.url(.file(created.id), for: claims)))
    }
}
