import Foundation
import TestSupport
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A small WOPI host that is not WOPIKit's code, for `wopi validate` and the validator family of
/// `wopi check-host`: an Office file (`1`, Plan.docx) and a `.wopitest` file (`2`) with the file and lock
/// operations, PutRelativeFile and DeleteFile. Like many real hosts it echoes a request it does not
/// implement, access token included, in its answer. Faults are planted per test.
struct ValidatorStandInHost {
    struct Faults: Sendable {
        /// CheckFileInfo leaves out the required `OwnerId`.
        var omitsOwnerId = false
        /// PutRelativeFile is not implemented (501), so no scratch file can be made.
        var refusesPutRelative = false
        /// GetFile of a file created with PutRelativeFile waits until ``ValidatorStandInFiles/releaseHeld()``.
        var holdsDownloadsOfCreatedFiles = false
    }

    /// A distinctive token: no artifact of a run may contain it.
    static let token = "vsi-\(UUID().uuidString.lowercased())-secret"

    let baseURL: URL
    let files: ValidatorStandInFiles

    /// The WOPISrc of a file.
    func wopiSrc(_ id: String) -> String { "\(baseURL.absoluteString)/wopi/files/\(id)" }

    static func withRunning<T: Sendable>(_ faults: Faults = Faults(), _ body: @Sendable (ValidatorStandInHost) async throws -> T) async throws -> T {
        let files = ValidatorStandInFiles(faults: faults)
        let router = Router()
        routes(router, files)
        return try await serve(router) { url in
            await files.setBase(url)
            do {
                let result = try await body(ValidatorStandInHost(baseURL: url, files: files))
                await files.releaseHeld()
                return result
            } catch {
                await files.releaseHeld()
                throw error
            }
        }
    }

    private static func routes(_ router: Router<BasicRequestContext>, _ files: ValidatorStandInFiles) {
        router.get("wopi/files/:id") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            return await files.info(id)
        }
        router.get("wopi/files/:id/contents") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            await files.holdIfCreated(id)
            return await files.contents(id)
        }
        router.post("wopi/files/:id/contents") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            var request = request
            let body = try await request.collectBody(upTo: 8 << 20)
            return await files.put(id, Data(body.readableBytesView), lock: request.headers[HTTPField.Name("X-WOPI-Lock")!])
        }
        router.post("wopi/files/:id") { request, context in
            guard let id = checked(request, context) else { return plain(.unauthorized) }
            let header = { (name: String) in request.headers[HTTPField.Name(name)!] }
            let operation = header("X-WOPI-Override") ?? ""
            switch operation {
            case "PUT_RELATIVE" where !files.faults.refusesPutRelative:
                var request = request
                let body = try await request.collectBody(upTo: 8 << 20)
                return await files.putRelative(id, suggested: header("X-WOPI-SuggestedTarget") ?? header("X-WOPI-RelativeTarget") ?? "",
                                               Data(body.readableBytesView))
            case "DELETE":
                return await files.delete(id)
            case "LOCK", "UNLOCK", "REFRESH_LOCK", "GET_LOCK":
                return await files.lockOperation(id, operation, lock: header("X-WOPI-Lock"), oldLock: header("X-WOPI-OldLock"))
            default:
                return echo(request)
            }
        }
    }

    /// What a careless host answers to an operation it does not know: the request, token and all.
    private static func echo(_ request: Request) -> Response {
        let authorization = request.headers[.authorization] ?? ""
        let text = "unsupported operation \(request.headers[HTTPField.Name("X-WOPI-Override")!] ?? "?") for \(request.method) "
            + "\(request.uri.description) (Authorization: \(authorization)); your token \(token) is fine"
        return Response(status: .notImplemented, body: .init(byteBuffer: ByteBuffer(string: text)))
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

/// The stand-in's files and what was done to them.
actor ValidatorStandInFiles {
    struct Item {
        var name: String
        var bytes: Data
        var revision: Int
        var lock: String?
        var createdByPutRelative: Bool
    }

    nonisolated let faults: ValidatorStandInHost.Faults
    private var items: [String: Item]
    private var nextID = 3
    private var base = URL(fileURLWithPath: "/")
    private var held: [CheckedContinuation<Void, Never>] = []
    private var releasing = false
    private(set) var deleted: [String] = []

    init(faults: ValidatorStandInHost.Faults) {
        self.faults = faults
        items = [
            "1": Item(name: "Plan.docx", bytes: Data(repeating: 0x50, count: 2048), revision: 1, createdByPutRelative: false),
            "2": Item(name: "given.wopitest", bytes: Data(), revision: 1, createdByPutRelative: false),
        ]
    }

    func setBase(_ url: URL) { base = url }
    /// Every file's name.
    var names: [String] { items.values.map(\.name).sorted() }
    /// How many requests wait in ``holdIfCreated(_:)``.
    var heldCount: Int { held.count }

    /// Waits until ``releaseHeld()`` when `id` was made by PutRelativeFile and the fault asks for it.
    func holdIfCreated(_ id: String) async {
        guard faults.holdsDownloadsOfCreatedFiles, !releasing, items[id]?.createdByPutRelative == true else { return }
        await withCheckedContinuation { held.append($0) }
    }

    func releaseHeld() {
        releasing = true
        for continuation in held { continuation.resume() }
        held = []
    }

    func info(_ id: String) -> Response {
        guard let item = items[id] else { return ValidatorStandInHost.plain(.notFound) }
        var object: [String: Any] = [
            "BaseFileName": item.name, "OwnerId": "stand-in-owner", "UserId": "stand-in-user", "Size": item.bytes.count,
            "Version": "rev-\(item.revision)", "UserCanWrite": true, "SupportsLocks": true, "SupportsGetLock": true,
            "SupportsUpdate": true, "SupportsExtendedLockLength": true, "SupportsDeleteFile": true,
            // Claimed but not implemented: these operations get the echo.
            "SupportsRename": true, "UserCanRename": true,
            "UserCanNotWriteRelative": faults.refusesPutRelative, "UserFriendlyName": "Stand-in user",
            "IsEduUser": false, "LicenseCheckForEditIsEnabled": false,
        ]
        if faults.omitsOwnerId { object["OwnerId"] = nil }
        return json(object)
    }

    func contents(_ id: String) -> Response {
        guard let item = items[id] else { return ValidatorStandInHost.plain(.notFound) }
        var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: item.bytes)))
        response.headers[HTTPField.Name("X-WOPI-ItemVersion")!] = "rev-\(item.revision)"
        return response
    }

    func put(_ id: String, _ bytes: Data, lock: String?) -> Response {
        guard var item = items[id] else { return ValidatorStandInHost.plain(.notFound) }
        guard item.lock == lock || (item.lock == nil && item.bytes.isEmpty) else {
            return ValidatorStandInHost.plain(.conflict, ["X-WOPI-Lock": item.lock ?? ""])
        }
        item.bytes = bytes
        item.revision += 1
        items[id] = item
        return ValidatorStandInHost.plain(.ok, ["X-WOPI-ItemVersion": "rev-\(item.revision)"])
    }

    func lockOperation(_ id: String, _ operation: String, lock: String?, oldLock: String?) -> Response {
        guard var item = items[id] else { return ValidatorStandInHost.plain(.notFound) }
        let current = item.lock ?? ""
        let conflict = ValidatorStandInHost.plain(.conflict, ["X-WOPI-Lock": current])
        switch operation {
        case "GET_LOCK":
            return ValidatorStandInHost.plain(.ok, ["X-WOPI-Lock": current])
        case "LOCK" where oldLock != nil:
            guard let lock, item.lock == oldLock else { return conflict }
            item.lock = lock
        case "LOCK":
            guard let lock, item.lock == nil || item.lock == lock else { return conflict }
            item.lock = lock
        case "REFRESH_LOCK":
            guard let lock, item.lock == lock else { return conflict }
        default:
            guard let lock, item.lock == lock else { return conflict }
            item.lock = nil
        }
        items[id] = item
        return ValidatorStandInHost.plain(.ok, ["X-WOPI-ItemVersion": "rev-\(item.revision)"])
    }

    func putRelative(_ id: String, suggested: String, _ bytes: Data) -> Response {
        guard items[id] != nil, !suggested.isEmpty else { return ValidatorStandInHost.plain(.badRequest) }
        var name = suggested.hasPrefix(".") ? "file" + suggested : suggested
        while items.values.contains(where: { $0.name == name }) { name = "Copy of " + name }
        let newID = String(nextID)
        nextID += 1
        items[newID] = Item(name: name, bytes: bytes, revision: 1, createdByPutRelative: true)
        return json(["Name": name, "Url": "\(base.absoluteString)/wopi/files/\(newID)?access_token=\(ValidatorStandInHost.token)"])
    }

    func delete(_ id: String) -> Response {
        guard let item = items[id] else { return ValidatorStandInHost.plain(.notFound) }
        guard item.lock == nil else { return ValidatorStandInHost.plain(.conflict, ["X-WOPI-Lock": item.lock ?? ""]) }
        items[id] = nil
        deleted.append(item.name)
        return ValidatorStandInHost.plain(.ok)
    }

    private func json(_ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        response.headers[.contentType] = "application/json"
        return response
    }
}

extension ValidatorStandInHost {
    /// Runs a Hummingbird router on 127.0.0.1 and an ephemeral port for the duration of `body`.
    static func serve<T: Sendable>(_ router: Router<BasicRequestContext>, _ body: @Sendable (URL) async throws -> T) async throws -> T {
        try await LoopbackServer.serve(router, label: "ValidatorStandInHost", body)
    }
}
