import Foundation
import WOPIHTTPClient
import WOPIValidator

/// A tiny in-memory WOPI host with one `.wopitest` file and a correct lock model (PROTOCOL §4), used as the
/// runner's transport. Flags break it in specific ways so tests can check the right cases fail.
actor FakeWOPIHost: HTTPTransport {
    struct Faults: Sendable {
        /// Omit `X-WOPI-Lock` on 409 answers.
        var omitLockOnConflict = false
        /// Omit `X-WOPI-ItemVersion` everywhere.
        var omitItemVersion = false
        /// Claim `SupportsLocks: false` in CheckFileInfo.
        var claimNoLocks = false
        /// Answer GetLock without `X-WOPI-Lock`.
        var omitLockOnGetLock = false
        /// Leave the required `OwnerId` out of CheckFileInfo.
        var omitOwnerId = false
    }

    static let token = "good-token"
    static let wopiSrc = "http://127.0.0.1:1/wopi/files/1"

    private let faults: Faults
    private var content = Data()
    private var version = 1
    private var lock: String?
    private(set) var requests: [TransportRequest] = []

    init(faults: Faults = Faults()) {
        self.faults = faults
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        requests.append(request)
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { return TransportResponse(status: 400) }
        let token = components.queryItems?.first { $0.name == "access_token" }?.value
        guard token == Self.token else { return TransportResponse(status: 401) }
        let override = request.headers.value(for: "X-WOPI-Override")
        let lockHeader = request.headers.value(for: "X-WOPI-Lock") ?? ""
        switch (components.path, request.method, override) {
        case ("/wopi/files/1", "GET", nil):
            return json(checkFileInfo)
        case ("/wopi/files/1/contents", "GET", nil):
            return TransportResponse(status: 200, headers: versionHeader, body: content)
        case ("/wopi/files/1/contents", "POST", "PUT"):
            if let current = lock, current != lockHeader { return conflict(current) }
            if lock == nil, !content.isEmpty { return conflict("") }
            content = request.body ?? Data()
            version += 1
            return TransportResponse(status: 200, headers: versionHeader)
        case ("/wopi/files/1", "POST", "LOCK"):
            if let old = request.headers.value(for: "X-WOPI-OldLock") {
                guard lock == old else { return conflict(lock ?? "") }
                lock = lockHeader
                return TransportResponse(status: 200, headers: versionHeader)
            }
            if let current = lock, current != lockHeader { return conflict(current) }
            lock = lockHeader
            return TransportResponse(status: 200, headers: versionHeader)
        case ("/wopi/files/1", "POST", "UNLOCK"):
            guard let current = lock, current == lockHeader else { return conflict(lock ?? "") }
            lock = nil
            return TransportResponse(status: 200, headers: versionHeader)
        case ("/wopi/files/1", "POST", "REFRESH_LOCK"):
            guard let current = lock, current == lockHeader else { return conflict(lock ?? "") }
            return TransportResponse(status: 200)
        case ("/wopi/files/1", "POST", "GET_LOCK"):
            return TransportResponse(status: 200, headers: faults.omitLockOnGetLock ? [] : [HeaderField("X-WOPI-Lock", lock ?? "")])
        default:
            return TransportResponse(status: 501)
        }
    }

    private var versionHeader: [HeaderField] {
        faults.omitItemVersion ? [] : [HeaderField("X-WOPI-ItemVersion", "v\(version)")]
    }

    private func conflict(_ current: String) -> TransportResponse {
        TransportResponse(status: 409, headers: faults.omitLockOnConflict ? [] : [HeaderField("X-WOPI-Lock", current)])
    }

    private var checkFileInfo: String {
        """
        {"BaseFileName":"test.wopitest",\(faults.omitOwnerId ? "" : #""OwnerId":"alice","#)"Size":\(content.count),"UserId":"alice","Version":"v\(version)",
         "UserCanWrite":true,"SupportsUpdate":true,"SupportsLocks":\(!faults.claimNoLocks),"SupportsGetLock":true,
         "SupportsExtendedLockLength":true,"UserCanNotWriteRelative":true,"UserFriendlyName":"Alice"}
        """
    }

    private func json(_ text: String) -> TransportResponse {
        let body = Data(text.utf8)
        return TransportResponse(status: 200, headers: [HeaderField("Content-Type", "application/json"),
                                                        HeaderField("Content-Length", String(body.count))], body: body)
    }
}
