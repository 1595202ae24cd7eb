import Foundation
import TestSupport
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A WOPI host that is not WOPIKit's code and does everything Office for iOS needs — files, locks,
/// PutRelativeFile, RenameFile, DeleteFile, and the containers (CheckContainerInfo, EnumerateChildren,
/// EnumerateAncestors, CreateChildFile, CreateChildContainer, DeleteContainer) — with the planted
/// ``HostFault``s switched on, usually one, or none. One access token for everything; the bootstrapper
/// only answers its 401 challenge. Like many real hosts it echoes a request it does not implement,
/// access token included, in its 501 answer: the tools that judge it must mask what they show.
/// Runs in the test process on 127.0.0.1 and an ephemeral port.
///
/// The folders are `Stand-in root` > `Documents`, and the file `Plan.docx` (id `F1`) lies in `Documents`.
struct FaultyWOPIHost: Sendable {
    /// A distinctive token: no artifact of a run may contain it.
    static let token = "faulty-host-token-" + UUID().uuidString
    static let userID = "corpus-user"
    static let fileName = "Plan.docx"
    static let validatorTestFileName = "given.wopitest"

    /// What the host has besides its protocol behaviour, which no check judges.
    struct Options: OptionSet, Sendable {
        let rawValue: Int
        /// An empty `given.wopitest` (id `F2`) next to `Plan.docx`, the file `wopi validate` runs on.
        static let validatorTestFile = Options(rawValue: 1 << 0)
        /// GetFile of a file made by PutRelativeFile waits until ``FaultyHostStorage/releaseHeld()``
        /// (or the end of `withRunning`), so a test can act while a client is at work on it.
        static let holdsDownloadsOfCreatedFiles = Options(rawValue: 1 << 1)
    }

    let baseURL: URL
    let storage: FaultyHostStorage

    var wopiSrc: String { wopiSrc("F1") }

    /// The WOPISrc of the file `id`.
    func wopiSrc(_ id: String) -> String { "\(baseURL.absoluteString)/wopi/files/\(id)" }

    /// An invoke URI for `Plan.docx`, as a provider's app would make it.
    var invokeURI: String { "ms-word:ofe|u|\(wopiSrc)|d|StandIn|e|\(Self.userID)|n|\(Self.fileName)|a|App|p|standin|c|home" }

    static func withRunning<T: Sendable>(fault: HostFault?, options: Options = [],
                                         _ body: @Sendable (FaultyWOPIHost) async throws -> T) async throws -> T {
        try await withRunning(faults: fault.map { [$0] } ?? [], options: options, body)
    }

    static func withRunning<T: Sendable>(faults: Set<HostFault>, options: Options = [],
                                         _ body: @Sendable (FaultyWOPIHost) async throws -> T) async throws -> T {
        let storage = FaultyHostStorage(faults: faults, options: options)
        let router = Router()
        routes(router, storage)
        return try await LoopbackServer.serve(router, label: "FaultyWOPIHost") { url in
            await storage.setBase(url)
            do {
                let result = try await body(FaultyWOPIHost(baseURL: url, storage: storage))
                await storage.releaseHeld()
                return result
            } catch {
                await storage.releaseHeld()
                throw error
            }
        }
    }

    var bootstrapper: String { "\(baseURL.absoluteString)/wopibootstrapper" }

    /// The challenge its bootstrapper answers without a token; the sign-in itself is not implemented.
    static let challenge = "Bearer authorization_uri=\"https://login.standin.test/authorize\",tokenIssuance_uri=\"https://login.standin.test/token\",providerId=\"TP_STANDIN\""

    private static func routes(_ router: Router<BasicRequestContext>, _ storage: FaultyHostStorage) {
        router.get("wopibootstrapper") { _, _ in
            var response = Response(status: .unauthorized)
            response.headers[.wwwAuthenticate] = challenge
            return response
        }
        for path in ["wopi/:kind/:id", "wopi/:kind/:id/:operation"] {
            router.get(RouterPath(stringLiteral: path)) { request, context in
                try await handle(request, context, storage)
            }
            router.post(RouterPath(stringLiteral: path)) { request, context in
                try await handle(request, context, storage)
            }
        }
    }

    private static func handle(_ request: Request, _ context: BasicRequestContext, _ storage: FaultyHostStorage) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        var call = FaultyHostStorage.Call(
            method: request.method == .get ? "GET" : "POST", kind: context.parameters.get("kind") ?? "",
            id: context.parameters.get("id") ?? "", operation: context.parameters.get("operation"), headers: headers, body: Data())
        guard request.uri.queryParameters.get("access_token") == token else {
            return response(await storage.refuseToken(call))
        }
        if call.method == "POST" {
            // The whole body or nothing — but the storage hears of each upload as it starts and goes,
            // for the faults that mishandle a dropped one.
            let upload = call.operation == "contents" && call.kind == "files"
            if upload { await storage.uploadStarted(call.id) }
            var received = Data()
            for try await chunk in request.body {
                let bytes = Data(chunk.readableBytesView)
                received.append(bytes)
                if upload { await storage.uploadChunk(call.id, bytes) }
                guard received.count <= 16 << 20 else { return response(.init(status: 413)) }
            }
            call.body = received
        }
        if call.method == "GET", call.kind == "files", call.operation == "contents" { await storage.holdIfCreated(call.id) }
        let reply = await storage.handle(call)
        return reply.status == 501 && reply.body.isEmpty ? echo(request) : response(reply)
    }

    /// What a careless host answers to an operation it does not implement: the request, token and all.
    private static func echo(_ request: Request) -> Response {
        let authorization = request.headers[.authorization] ?? ""
        let text = "unsupported operation \(request.headers[HTTPField.Name("X-WOPI-Override")!] ?? "?") for \(request.method) "
            + "\(request.uri.description) (Authorization: \(authorization)); your token \(token) is fine"
        return Response(status: .notImplemented, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func response(_ reply: FaultyHostStorage.Reply) -> Response {
        var response = Response(status: HTTPResponse.Status(code: reply.status), body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
        for (name, value) in reply.headers { response.headers[HTTPField.Name(name)!] = value }
        return response
    }
}
