import Foundation
import TestSupport
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A WOPI host that is not WOPIKit's code: the file operations only (CheckFileInfo, GetFile, PutFile,
/// locks, PutRelativeFile, RenameFile) for a handful of files, one access token, no bootstrapper, no
/// OAuth, no containers — what a provider's existing Office-for-the-web host often is. Runs in the test process on 127.0.0.1 and an ephemeral port.
struct StandInWOPIHost {
    /// A fault planted on purpose, so `check-host` must name the rule it breaks.
    enum Fault: Sendable {
        case none
        /// CheckFileInfo says `IsEduUser: "no"` (a string, not a Boolean).
        case isEduUserAsString
    }

    static let token = "stand-in-token-" + UUID().uuidString
    static let userID = "stand-in-user"
    static let fileName = "Plan.docx"

    let baseURL: URL
    let files: StandInFiles

    var wopiSrc: String { "\(baseURL.absoluteString)/wopi/files/1" }

    /// An invoke URI for the first file, as a provider's app would make it.
    func invokeURI(passback: String = "standin") -> String {
        "ms-word:ofe|u|\(wopiSrc)|d|StandIn|e|\(Self.userID)|n|\(Self.fileName)|a|App|p|\(passback)|c|home"
    }

    static func withRunning<T: Sendable>(fault: Fault = .none, content: Data = Data(repeating: 0x50, count: 48 * 1024),
                                         _ body: @Sendable (StandInWOPIHost) async throws -> T) async throws -> T {
        let files = StandInFiles(fault: fault, first: content)
        let router = Router()
        routes(router, files)
        return try await LoopbackServer.serve(router, label: "StandInWOPIHost") { url in
            await files.setBase(url)
            return try await body(StandInWOPIHost(baseURL: url, files: files))
        }
    }

    private static func routes(_ router: Router<BasicRequestContext>, _ files: StandInFiles) {
        router.get("wopi/files/:id") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            return await files.info(id)
        }
        router.get("wopi/files/:id/contents") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            return await files.contents(id)
        }
        router.post("wopi/files/:id/contents") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            var request = request
            // The whole body or nothing: a dropped connection throws here and changes nothing.
            let body = try await request.collectBody(upTo: 8 << 20)
            return await files.put(id, Data(body.readableBytesView), lock: request.headers[.init("X-WOPI-Lock")!])
        }
        router.post("wopi/files/:id") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            let header = { (name: String) in request.headers[HTTPField.Name(name)!] }
            switch header("X-WOPI-Override") ?? "" {
            case "PUT_RELATIVE":
                var request = request
                let body = try await request.collectBody(upTo: 8 << 20)
                return await files.putRelative(id, suggested: header("X-WOPI-SuggestedTarget") ?? "", Data(body.readableBytesView))
            case "RENAME_FILE":
                return await files.rename(id, to: header("X-WOPI-RequestedName") ?? "", lock: header("X-WOPI-Lock"))
            case let operation:
                return await files.lockOperation(id, operation, lock: header("X-WOPI-Lock"), oldLock: header("X-WOPI-OldLock"))
            }
        }
    }

    private static func checked(_ request: Request, _ context: BasicRequestContext) -> String? {
        guard request.uri.queryParameters.get("access_token") == token else { return nil }
        return context.parameters.get("id")
    }

    static func plain(_ status: HTTPResponse.Status, _ headers: [String: String] = [:]) -> Response {
        var response = Response(status: status)
        for (name, value) in headers { response.headers[HTTPField.Name(name)!] = value }
        return response
    }
}

/// The stand-in's files. Names are ASCII here, so UTF-7 headers are taken as they come.
actor StandInFiles {
    struct Item {
        var name: String
        var bytes: Data
        var revision: Int
        var lock: String?
    }

    let fault: StandInWOPIHost.Fault
    private var items: [String: Item]
    private var base = URL(fileURLWithPath: "/")

    init(fault: StandInWOPIHost.Fault, first: Data) {
        self.fault = fault
        items = ["1": Item(name: StandInWOPIHost.fileName, bytes: first, revision: 1)]
    }

    func setBase(_ url: URL) { base = url }
    var names: [String] { items.values.map(\.name).sorted() }
    func item(_ id: String) -> Item? { items[id] }

    func info(_ id: String) -> Response {
        guard let item = items[id] else { return StandInWOPIHost.plain(.notFound) }
        let eduUser: Any = fault == .isEduUserAsString ? "no" : false
        let object: [String: Any] = [
            "BaseFileName": item.name, "OwnerId": StandInWOPIHost.userID, "UserId": StandInWOPIHost.userID, "Size": item.bytes.count,
            "Version": "rev-\(item.revision)", "IsEduUser": eduUser, "LicenseCheckForEditIsEnabled": false, "UserCanWrite": true,
            "SupportsLocks": true, "SupportsGetLock": true, "SupportsUpdate": true, "SupportsRename": true, "UserCanRename": true,
            "UserFriendlyName": "Stand-in user",
        ]
        return json(object)
    }

    func contents(_ id: String) -> Response {
        guard let item = items[id] else { return StandInWOPIHost.plain(.notFound) }
        var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: item.bytes)))
        response.headers[HTTPField.Name("X-WOPI-ItemVersion")!] = "rev-\(item.revision)"
        return response
    }

    func put(_ id: String, _ bytes: Data, lock: String?) -> Response {
        guard var item = items[id] else { return StandInWOPIHost.plain(.notFound) }
        guard item.lock == lock || (item.lock == nil && item.bytes.isEmpty) else {
            return StandInWOPIHost.plain(.conflict, ["X-WOPI-Lock": item.lock ?? ""])
        }
        item.bytes = bytes
        item.revision += 1
        items[id] = item
        return StandInWOPIHost.plain(.ok, ["X-WOPI-ItemVersion": "rev-\(item.revision)"])
    }

    func lockOperation(_ id: String, _ operation: String, lock: String?, oldLock: String?) -> Response {
        guard var item = items[id] else { return StandInWOPIHost.plain(.notFound) }
        let current = item.lock ?? ""
        switch operation {
        case "GET_LOCK":
            return StandInWOPIHost.plain(.ok, ["X-WOPI-Lock": current])
        case "LOCK" where oldLock == nil:
            guard let lock, item.lock == nil || item.lock == lock else { return StandInWOPIHost.plain(.conflict, ["X-WOPI-Lock": current]) }
            item.lock = lock
        case "REFRESH_LOCK":
            guard let lock, item.lock == lock else { return StandInWOPIHost.plain(.conflict, ["X-WOPI-Lock": current]) }
        case "UNLOCK":
            guard let lock, item.lock == lock else { return StandInWOPIHost.plain(.conflict, ["X-WOPI-Lock": current]) }
            item.lock = nil
        default:
            return StandInWOPIHost.plain(.notImplemented)
        }
        items[id] = item
        return StandInWOPIHost.plain(.ok, ["X-WOPI-ItemVersion": "rev-\(item.revision)"])
    }

    func putRelative(_ id: String, suggested: String, _ bytes: Data) -> Response {
        guard items[id] != nil, !suggested.isEmpty else { return StandInWOPIHost.plain(.badRequest) }
        var name = suggested
        while items.values.contains(where: { $0.name == name }) { name = "Copy of " + name }
        let newID = String(items.count + 1)
        items[newID] = Item(name: name, bytes: bytes, revision: 1)
        return json(["Name": name, "Url": "\(base.absoluteString)/wopi/files/\(newID)?access_token=\(StandInWOPIHost.token)"])
    }

    func rename(_ id: String, to stem: String, lock: String?) -> Response {
        guard var item = items[id], !stem.isEmpty else { return StandInWOPIHost.plain(.badRequest) }
        guard item.lock == nil || item.lock == lock else { return StandInWOPIHost.plain(.conflict, ["X-WOPI-Lock": item.lock ?? ""]) }
        let ext = item.name.lastIndex(of: ".").map { String(item.name[$0...]) } ?? ""
        item.name = stem + ext
        items[id] = item
        return json(["Name": stem])
    }

    private func json(_ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        response.headers[.contentType] = "application/json"
        return response
    }
}
