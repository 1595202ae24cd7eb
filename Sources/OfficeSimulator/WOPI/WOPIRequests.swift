import Foundation

/// Builds the WOPI requests Office sends for one file: the token always rides in the
/// `access_token` query parameter (concepts.rst), operations are chosen with `X-WOPI-Override`.
struct WOPIRequests: Sendable {
    /// The WOPISrc, `…/wopi/files/<id>`.
    let wopiSrc: URL
    /// The WOPI access token from GetNewAccessToken.
    let accessToken: String

    /// The tag the simulator sends as its user agent.
    static let userAgent = "WOPIKit-OfficeSimulator/1.0 (Office for iOS)"

    /// `<WOPISrc>[/suffix]?access_token=…`, keeping any query the WOPISrc has.
    func url(_ suffix: String = "") -> URL {
        var components = URLComponents(url: wopiSrc, resolvingAgainstBaseURL: true) ?? URLComponents()
        components.percentEncodedPath += suffix
        let token = "access_token=" + FormEncoding.encode(accessToken)
        components.percentEncodedQuery = components.percentEncodedQuery.map { "\($0)&\(token)" } ?? token
        return components.url ?? wopiSrc
    }

    /// CheckFileInfo: `GET <WOPISrc>`.
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

    /// A lock operation (`LOCK`, `GET_LOCK`, `REFRESH_LOCK`, `UNLOCK`): `POST <WOPISrc>`.
    func lockOperation(_ override: String, lock: String? = nil) -> SimulatorRequest {
        var headers = Self.common + [SimulatorHeader("X-WOPI-Override", override)]
        if let lock { headers.append(SimulatorHeader("X-WOPI-Lock", lock)) }
        return SimulatorRequest(method: "POST", url: url(), headers: headers, body: Data())
    }

    private static let common = [SimulatorHeader("User-Agent", userAgent)]
}
