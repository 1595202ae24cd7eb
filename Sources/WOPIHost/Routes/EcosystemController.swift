import Hummingbird
import WOPICore

/// The Ecosystem endpoint, `/wopi/ecosystem` (docs/rest/src/ecosystem/).
struct EcosystemController<Context: RequestContext>: Sendable {
    let backend: WOPIBackend

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("ecosystem", use: checkEcosystem)
        group.get("ecosystem/root_container_pointer", use: getRootContainer)
        group.post("ecosystem", use: ecosystemOperation) // GetFileWopiSrc
    }

    @Sendable func checkEcosystem(_ request: Request, context: Context) async throws -> Response {
        _ = try await backend.authorize(request, .ecosystem)
        return try WOPIJSON.response(["SupportsContainers": true])
    }

    @Sendable func getRootContainer(_ request: Request, context: Context) async throws -> Response {
        let (claims, user) = try await backend.authorize(request, .ecosystem)
        let root = try await backend.container(user.rootContainerID, for: user)
        return try WOPIJSON.response(ContainerPointerResponse(containerPointer: NamedURL(name: root.name, url: backend.url(.container(root.id), for: claims)),
                                             containerInfo: ContainerInfo(root)))
    }
}
