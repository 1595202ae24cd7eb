import Foundation
import Hummingbird
import OfficeURLScheme
import WOPICore
import WOPIHost

/// `/wopibootstrapper` (rest/src/bootstrapper): turns an OAuth access token into WOPI access
/// tokens. Without a valid bearer token: 401 and exactly one `WWW-Authenticate: Bearer …`.
extension AuthorizationServer {
    /// `Bootstrap` (Bootstrap.rst, "Authenticated response").
    struct BootstrapInfo: Encodable {
        var ecosystemUrl: String
        var userId: String
        var signInName: String
        var userFriendlyName: String
    }

    struct BootstrapResponse: Encodable {
        var bootstrap: BootstrapInfo
    }

    /// GetNewAccessToken's `AccessTokenInfo`: the token and its expiry in milliseconds since the epoch.
    struct AccessTokenInfo: Encodable {
        var accessToken: String
        var accessTokenExpiry: Int64
    }

    struct NewAccessTokenResponse: Encodable {
        var accessTokenInfo: AccessTokenInfo
        var bootstrap: BootstrapInfo
    }

    struct RootContainerResponse: Encodable {
        var bootstrap: BootstrapInfo
        var rootContainerInfo: ContainerPointerResponse
    }

    /// `GET /wopibootstrapper`: Bootstrap.
    func bootstrap(_ request: Request, context: some RequestContext) async throws -> Response {
        let (token, user) = try await bootstrapperCaller(request)
        return try WOPIJSON.response(BootstrapResponse(bootstrap: info(for: user, token: token)))
    }

    /// `POST /wopibootstrapper` with `X-WOPI-EcosystemOperation`: GET_ROOT_CONTAINER or GET_NEW_ACCESS_TOKEN.
    func ecosystemOperation(_ request: Request, context: some RequestContext) async throws -> Response {
        let (token, user) = try await bootstrapperCaller(request)
        guard let operation = try request.headers.single(.wopiEcosystemOperation) else {
            throw WOPIError.badRequest("missing X-WOPI-EcosystemOperation")
        }
        switch operation.uppercased() {
        case "GET_ROOT_CONTAINER":
            let root = try await backend.container(user.rootContainerID, for: user)
            let (wopiToken, _) = backend.issueToken(user: user.id, resource: .container(root.id), notAfter: token.expiresAt)
            let pointer = NamedURL(name: root.name, url: "\(backend.wopiSrc(.container(root.id)))?access_token=\(wopiToken)")
            return try WOPIJSON.response(RootContainerResponse(
                bootstrap: info(for: user, token: token),
                rootContainerInfo: ContainerPointerResponse(containerPointer: pointer, containerInfo: ContainerInfo(root))))
        case "GET_NEW_ACCESS_TOKEN":
            guard let source = try request.headers.single(.wopiWopiSrc), let resource = resource(named: source) else {
                throw WOPIError.notFound("X-WOPI-WopiSrc is missing or names no resource of this host")
            }
            switch resource {
            // Anyone who may open the resource (its owner, or a user it is shared with) gets a token; the role is checked per request.
            case .file(let id):
                guard try await backend.store.fileAccess(id, by: user.id)?.role != nil else { throw WOPIError.notFound("file not found") }
            case .container(let id):
                if SharedWithMe.userID(in: id) != user.id, try await backend.store.containerAccess(id, by: user.id)?.role == nil {
                    throw WOPIError.notFound("container not found")
                }
            case .ecosystem: break
            case .shareLink: throw WOPIError.notFound("X-WOPI-WopiSrc names no WOPI resource")
            }
            // The WOPI token may not outlive the OAuth token that asked for it.
            let (wopiToken, claims) = backend.issueToken(user: user.id, resource: resource, notAfter: token.expiresAt)
            return try WOPIJSON.response(NewAccessTokenResponse(
                accessTokenInfo: AccessTokenInfo(accessToken: wopiToken, accessTokenExpiry: claims.accessTokenTTL),
                bootstrap: info(for: user, token: token)))
        default:
            throw WOPIError.notImplemented("X-WOPI-EcosystemOperation '\(operation.prefix(40))' is not supported")
        }
    }

    /// The caller's OAuth token and user, or 401 with the challenge.
    private func bootstrapperCaller(_ request: Request) async throws -> (OAuthTokenRecord, UserRecord) {
        switch try await authenticate(request) {
        case .success(let caller):
            return caller
        case .failure(let refusal):
            var headers = HTTPFields()
            do { headers[.wwwAuthenticate] = try challenge().headerValue } catch {
                throw WOPIError(.internalServerError, "the public URL cannot be carried in WWW-Authenticate: \(error)")
            }
            throw WOPIError(.unauthorized, refusal.reason, headers: headers)
        }
    }

    private func info(for user: UserRecord, token: OAuthTokenRecord) -> BootstrapInfo {
        let (ecosystemToken, _) = backend.issueToken(user: user.id, resource: .ecosystem, notAfter: token.expiresAt)
        return BootstrapInfo(ecosystemUrl: "\(backend.wopiSrc(.ecosystem))?access_token=\(ecosystemToken)", userId: user.id.rawValue,
                             signInName: user.name, userFriendlyName: user.displayName)
    }

    /// The resource a WopiSrc names on this host (same scheme, host and port as the public URL;
    /// path `/wopi/files/<id>`, `/wopi/containers/<id>` or `/wopi/ecosystem`; any query ignored).
    func resource(named source: String) -> WOPIResource? {
        guard let url = URLComponents(string: source.trimmingCharacters(in: .whitespaces)),
              let base = URLComponents(url: backend.configuration.publicURL, resolvingAgainstBaseURL: false),
              url.scheme?.lowercased() == base.scheme?.lowercased(), url.host?.lowercased() == base.host?.lowercased(),
              Self.port(url) == Self.port(base) else { return nil }
        var path = url.path
        guard path.hasPrefix(basePath + "/wopi/") else { return nil }
        path.removeFirst(basePath.count + "/wopi/".count)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("ecosystem"?, 1): return .ecosystem
        case ("files"?, 2): return ResourceID(String(parts[1])).map(WOPIResource.file)
        case ("containers"?, 2): return ResourceID(String(parts[1])).map(WOPIResource.container)
        default: return nil
        }
    }

    private static func port(_ components: URLComponents) -> Int? {
        components.port ?? (components.scheme?.lowercased() == "https" ? 443 : components.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
