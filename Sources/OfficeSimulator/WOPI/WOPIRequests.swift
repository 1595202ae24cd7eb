import Foundation
import WOPICore
import WOPIHTTPClient

/// Builds the WOPI requests Office sends for one file or folder: the token always rides in the
/// `access_token` query parameter (concepts.rst), operations are chosen with `X-WOPI-Override`.
struct WOPIRequests: Sendable {
    /// The WOPISrc, `…/wopi/files/<id>` or `…/wopi/containers/<id>`, without the token.
    let wopiSrc: URL
    /// The WOPI access token for it.
    let accessToken: String

    /// The tag the simulator sends as its user agent.
    static let userAgent = "WOPIKit-OfficeSimulator/1.0 (Office for iOS)"

    init(wopiSrc: URL, accessToken: String) {
        self.wopiSrc = wopiSrc
        self.accessToken = accessToken
    }

    /// The requests for a URL a host handed out (EnumerateChildren's `Url`, PutRelativeFile's `Url`,
    /// a container pointer): the WOPISrc with its `access_token` query parameter taken apart.
    /// `nil` when the URL is not absolute http(s) or carries no `access_token`.
    init?(pointer: String) {
        guard var components = URLComponents(string: pointer), components.scheme == "http" || components.scheme == "https",
              components.host != nil, let items = components.queryItems,
              let token = items.first(where: { $0.name == "access_token" })?.value, !token.isEmpty else { return nil }
        let rest = items.filter { $0.name != "access_token" }
        components.queryItems = rest.isEmpty ? nil : rest
        guard let url = components.url else { return nil }
        self.init(wopiSrc: url, accessToken: token)
    }

    /// `<WOPISrc>[/suffix]?access_token=…`, keeping any query the WOPISrc has.
    func url(_ suffix: String = "") -> URL {
        var components = URLComponents(url: wopiSrc, resolvingAgainstBaseURL: true) ?? URLComponents()
        components.percentEncodedPath += suffix
        let token = "access_token=" + FormEncoding.encode(accessToken)
        components.percentEncodedQuery = components.percentEncodedQuery.map { "\($0)&\(token)" } ?? token
        return components.url ?? wopiSrc
    }

    /// CheckFileInfo (or CheckContainerInfo on a container): `GET <WOPISrc>`.
    var checkFileInfo: SimulatorRequest {
        SimulatorRequest(method: "GET", url: url(), headers: Self.common)
    }

    /// GetFile: `GET <WOPISrc>/contents`.
    var getFile: SimulatorRequest {
        SimulatorRequest(method: "GET", url: url("/contents"), headers: Self.common)
    }

    /// PutFile: `POST <WOPISrc>/contents` with `X-WOPI-Override: PUT` and the lock.
    func putFile(_ content: Data, lock: String) -> SimulatorRequest {
        SimulatorRequest(method: "POST", url: url("/contents"), headers: Self.common + [
            SimulatorHeader("X-WOPI-Override", "PUT"), SimulatorHeader("X-WOPI-Lock", lock),
            SimulatorHeader("Content-Type", "application/octet-stream"),
        ], body: content)
    }

    /// PutFile as a browser editor sends it: the lock when it holds one, and its own headers
    /// (Collabora Online's `X-COOL-WOPI-*`, Office for the web's `X-WOPI-Editors`).
    func putFile(_ content: Data, lock: String?, headers extra: [SimulatorHeader]) -> SimulatorRequest {
        var headers = Self.common + [SimulatorHeader("X-WOPI-Override", "PUT"), SimulatorHeader("Content-Type", "application/octet-stream")]
        if let lock { headers.append(SimulatorHeader("X-WOPI-Lock", lock)) }
        return SimulatorRequest(method: "POST", url: url("/contents"), headers: headers + extra, body: content)
    }

    /// A lock operation (`LOCK`, `GET_LOCK`, `REFRESH_LOCK`, `UNLOCK`): `POST <WOPISrc>`.
    func lockOperation(_ override: String, lock: String? = nil) -> SimulatorRequest {
        var headers = Self.common + [SimulatorHeader("X-WOPI-Override", override)]
        if let lock { headers.append(SimulatorHeader("X-WOPI-Lock", lock)) }
        return SimulatorRequest(method: "POST", url: url(), headers: headers, body: Data())
    }

    /// PutRelativeFile in suggested mode (PutRelativeFile.rst): the name UTF-7 encoded, the content as the body.
    func putRelativeFile(suggestedName: String, content: Data) -> SimulatorRequest {
        SimulatorRequest(method: "POST", url: url(), headers: Self.common + [
            SimulatorHeader("X-WOPI-Override", "PUT_RELATIVE"), SimulatorHeader("X-WOPI-SuggestedTarget", UTF7.encode(suggestedName)),
            SimulatorHeader("X-WOPI-Size", String(content.count)), SimulatorHeader("Content-Type", "application/octet-stream"),
        ], body: content)
    }

    /// RenameFile (RenameFile.rst): the new name without extension, UTF-7 encoded, with the lock.
    func renameFile(to stem: String, lock: String) -> SimulatorRequest {
        SimulatorRequest(method: "POST", url: url(), headers: Self.common + [
            SimulatorHeader("X-WOPI-Override", "RENAME_FILE"), SimulatorHeader("X-WOPI-Lock", lock),
            SimulatorHeader("X-WOPI-RequestedName", UTF7.encode(stem)),
        ], body: Data())
    }

    /// EnumerateAncestors of a file: `GET <WOPISrc>/ancestry`.
    var enumerateAncestors: SimulatorRequest {
        SimulatorRequest(method: "GET", url: url("/ancestry"), headers: Self.common)
    }

    /// EnumerateChildren of a container with Office's extension filter: `GET <WOPISrc>/children`.
    func enumerateChildren(extensions: [String]) -> SimulatorRequest {
        SimulatorRequest(method: "GET", url: url("/children"), headers: Self.common + [
            SimulatorHeader("X-WOPI-FileExtensionFilterList", extensions.map { "." + $0 }.joined(separator: ",")),
        ])
    }

    /// CreateChildFile in a container, suggested mode (CreateChildFile.rst).
    func createChildFile(suggestedName: String) -> SimulatorRequest {
        SimulatorRequest(method: "POST", url: url(), headers: Self.common + [
            SimulatorHeader("X-WOPI-Override", "CREATE_CHILD_FILE"), SimulatorHeader("X-WOPI-SuggestedTarget", UTF7.encode(suggestedName)),
        ], body: Data())
    }

    private static let common = [SimulatorHeader("User-Agent", userAgent)]
}
