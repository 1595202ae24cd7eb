import Foundation
import Hummingbird
import NIOCore
import TestSupport

/// A small WOPI host written apart from WOPIKit, in memory, for proving ``HistoryChecker`` on recorded
/// histories: correct, or with one planted defect that a real host has shown.
actor HistoryStandInHost {
    enum Defect: Sendable {
        /// Every other PutFile of a file answers 200 without keeping the body.
        case lostUpdate
        /// Lock on a file locked with another id answers 200 and takes the lock over.
        case doubleLockGrant
    }

    private struct File {
        var body: [UInt8]
        var version = 1
        var lock: String?
        var saves = 0
    }

    private let defect: Defect?
    private var files: [String: File]

    init(defect: Defect?, files: [String: [UInt8]]) {
        self.defect = defect
        self.files = files.mapValues { File(body: $0) }
    }

    /// Serves the host on 127.0.0.1 for the length of `body`, which gets its base URL.
    static func withRunning<T: Sendable>(defect: Defect?, files: [String: [UInt8]], _ body: @Sendable (String) async throws -> T) async throws -> T {
        let host = HistoryStandInHost(defect: defect, files: files)
        let router = Router()
        router.get("wopi/files/:id") { _, context in try await host.checkFileInfo(context.parameters.require("id")) }
        router.get("wopi/files/:id/contents") { _, context in try await host.getFile(context.parameters.require("id")) }
        router.post("wopi/files/:id/contents") { request, context in
            let body = try await request.body.collect(upTo: 16 * 1024 * 1024)
            return try await host.putFile(context.parameters.require("id"), lock: request.headers[values: .init("X-WOPI-Lock")!].first,
                                          body: Array(body.readableBytesView))
        }
        router.post("wopi/files/:id") { request, context in
            try await host.override(context.parameters.require("id"), request.headers[values: .init("X-WOPI-Override")!].first ?? "",
                                    lock: request.headers[values: .init("X-WOPI-Lock")!].first ?? "")
        }
        return try await LoopbackServer.serve(router, label: "HistoryStandInHost") { url in try await body(url.absoluteString) }
    }

    private func file(_ id: String) throws -> File {
        guard let file = files[id] else { throw HTTPError(.notFound) }
        return file
    }

    private static func answer(_ status: HTTPResponse.Status, lock: String? = nil, version: Int? = nil, body: [UInt8] = []) -> Response {
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        if let lock { response.headers[.init("X-WOPI-Lock")!] = lock }
        if let version { response.headers[.init("X-WOPI-ItemVersion")!] = String(version) }
        return response
    }

    func checkFileInfo(_ id: String) throws -> Response {
        let file = try file(id)
        let info = #"{"BaseFileName":"\#(id).docx","Size":\#(file.body.count),"Version":"\#(file.version)","OwnerId":"o","UserId":"u"}"#
        return Self.answer(.ok, body: Array(info.utf8))
    }

    func getFile(_ id: String) throws -> Response {
        let file = try file(id)
        return Self.answer(.ok, version: file.version, body: file.body)
    }

    func putFile(_ id: String, lock: String?, body: [UInt8]) throws -> Response {
        var file = try file(id)
        // WOPI: a save needs the file's lock, except on an unlocked empty file.
        guard (lock != nil && file.lock == lock) || (lock == nil && file.lock == nil && file.body.isEmpty) else {
            return Self.answer(.conflict, lock: file.lock ?? "")
        }
        file.saves += 1
        if defect != .lostUpdate || file.saves % 2 == 1 {
            file.body = body
            file.version += 1
        }
        files[id] = file
        return Self.answer(.ok, version: file.version)
    }

    func override(_ id: String, _ operation: String, lock: String) throws -> Response {
        var file = try file(id)
        if operation == "DELETE" {
            // DeleteFile names no lock: refused while anyone holds one.
            guard file.lock == nil else { return Self.answer(.conflict, lock: file.lock) }
            files[id] = nil
            return Self.answer(.ok)
        }
        defer { files[id] = file }
        switch operation {
        case "LOCK":
            guard file.lock == nil || file.lock == lock || defect == .doubleLockGrant else { return Self.answer(.conflict, lock: file.lock) }
            file.lock = lock
        case "REFRESH_LOCK", "RENAME_FILE":
            guard file.lock == lock else { return Self.answer(.conflict, lock: file.lock ?? "") }
        case "UNLOCK":
            guard file.lock == lock else { return Self.answer(.conflict, lock: file.lock ?? "") }
            file.lock = nil
        default:
            return Self.answer(.notImplemented)
        }
        return Self.answer(.ok)
    }
}
