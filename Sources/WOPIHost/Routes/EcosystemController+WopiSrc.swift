import Foundation
import HTTPTypes
import Hummingbird
import WOPICore

extension HTTPField.Name {
    /// GetFileWopiSrc's host-specific file identifier (ecosystem/GetFileWopiSrc.rst).
    static let wopiHostNativeFileName = Self("X-WOPI-HostNativeFileName")!
}

/// GetFileWopiSrc (docs/rest/src/ecosystem/GetFileWopiSrc.rst): `POST /wopi/ecosystem` with
/// `X-WOPI-Override: GET_WOPI_SRC_WITH_ACCESS_TOKEN` turns a URL this host handed out into the file's
/// WOPISrc with a fresh access token for the caller.
///
/// The URLs it accepts are the host's own: a live file share link (`<public URL>/share/<token>`, from
/// GetShareUrl) and a file's WOPISrc (`<public URL>/wopi/files/<id>`, as `wopi files add` prints it).
/// The caller must be allowed to open the file: its owner, or a user it (or a folder above it) is shared with. Anything else — another host's URL,
/// an expired or forged link, a folder link, a file the caller may not open, a missing header — is 404,
/// the status the docs give for "resource not found/user unauthorized"; nothing says which.
extension EcosystemController {
    /// The `X-WOPI-Override` value of GetFileWopiSrc.
    static var getFileWopiSrcOverride: String { "GET_WOPI_SRC_WITH_ACCESS_TOKEN" }

    @Sendable func ecosystemOperation(_ request: Request, context: Context) async throws -> Response {
        let (claims, user) = try await backend.authorize(request, .ecosystem)
        guard let operation = try request.headers.single(.wopiOverride) else { throw WOPIError.badRequest("missing X-WOPI-Override") }
        guard operation == Self.getFileWopiSrcOverride else {
            throw WOPIError.notImplemented("unknown X-WOPI-Override '\(operation.prefix(64))' on the ecosystem")
        }
        guard let hostURL = try request.headers.single(.wopiHostNativeFileName), !hostURL.isEmpty,
              let fileID = backend.fileID(handedOut: hostURL)
        else { throw WOPIError.notFound("X-WOPI-HostNativeFileName is not a file URL this host handed out") }
        guard try await backend.store.fileAccess(fileID, by: user.id)?.role != nil else { throw WOPIError.notFound("file not found") }
        return try WOPIJSON.response(["Url": backend.url(.file(fileID), for: claims)])
    }
}

extension WOPIBackend {
    /// The file a URL this host handed out points at: a live, unforged file share link or a file's WOPISrc
    /// under ``WOPIHostConfiguration/publicURL``; `nil` for anything else. Says nothing about who may open it.
    func fileID(handedOut url: String) -> ResourceID? {
        let base = configuration.publicURL.absoluteString
        guard url.hasPrefix(base + "/") else { return nil }
        let path = url.dropFirst(base.count + 1)
        if path.hasPrefix("share/") {
            let token = String(path.dropFirst("share/".count))
            guard let claims = try? tokens.verify(token, now: configuration.now()),
                  case .shareLink(let id, isContainer: false, readWrite: _) = claims.resource
            else { return nil }
            return id
        }
        if path.hasPrefix("wopi/files/") {
            // A WOPISrc may carry a query (an access token); the id is the path segment alone.
            let rest = path.dropFirst("wopi/files/".count)
            let segment = rest.prefix { $0 != "?" }
            guard segment.count == rest.count || rest[segment.endIndex] == "?" else { return nil }
            return ResourceID(String(segment))
        }
        return nil
    }
}
