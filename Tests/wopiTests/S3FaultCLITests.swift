import Foundation
import NIOCore
import TestSupport
import Testing
import WOPIHost
@testable import WOPIBlobStoreS3
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `wopi serve` with bodies in S3 while the object store stalls (SIGSTOP) or loses a body: every request gets an
/// answer a client can act on within the call bound, the file keeps its content and Version, and the sweep leaves
/// nothing behind. Each test has a SeaweedFS of its own, since it stops it.
@Suite("Bodies in S3 under faults", .serialized)
struct S3FaultCLITests {
    /// `--s3-timeout`: how long one call to the stalled server waits.
    static let callTimeout = 2

    /// A host on a SeaweedFS of its own, with alice's `Plan.docx` in it.
    final class Setup: @unchecked Sendable {
        let server: SeaweedFSTestServer
        let store: S3BlobStore
        let work: URL
        let storageArguments: [String]
        let host: WopiServer
        let port: Int
        let fileID: String
        let token: String
        let original = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        init() async throws {
            server = try await offPool { try SeaweedFSTestServer.startPrivate() }
            let blobs = try await S3CLITests.makeBucket(on: server)
            store = S3BlobStore(location: try S3Location(parsing: blobs),
                                credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey),
                                http: S3CLITests.http, timeout: .seconds(10))
            work = S3CLITests.temporaryFolder()
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            storageArguments = ["--data", work.appendingPathComponent("data").path, "--blobs", blobs]
            let environment = S3CLITests.environment(server)
            let document = work.appendingPathComponent("Plan.docx")
            try original.write(to: document)
            func run(_ arguments: [String]) async throws -> [String: Any] {
                let result = try await WopiProcess.run(arguments, environment: environment, timeout: 60)
                try #require(result.exitCode == 0, "wopi \(arguments.first ?? ""): \(result.stderr)")
                return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
            }
            _ = try await run(["users", "add", "alice", "--password", "s3-fault-password"] + storageArguments)
            fileID = try #require(try await run(["files", "add", document.path, "--owner", "alice"] + storageArguments)["id"] as? String)
            token = try #require(try await run(["token", "--user", "alice", "--file", fileID] + storageArguments)["access_token"] as? String)
            port = try LocalPort.free()
            host = try WopiServer.launch(["--host", "127.0.0.1", "--port", "\(port)", "--s3-timeout", "\(S3FaultCLITests.callTimeout)"]
                                         + storageArguments, environment: environment)
            try await S3CLITests.waitUntilReady(port: port, host: host)
        }

        /// SIGSTOP: the server is alive and accepts connections, but answers nothing.
        func stall() { kill(server.pid, SIGSTOP) }
        func resume() { kill(server.pid, SIGCONT) }

        func stop() {
            resume()
            host.stop()
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }

        var path: String { "/wopi/files/\(fileID)" }
        var query: String { "access_token=\(token)" }

        /// Locks the file, as Office does before it saves.
        func lock() async throws {
            let locked = try await RawHTTPConnection.request(port: port, "POST", "\(path)?\(query)", ["X-WOPI-Override: LOCK", "X-WOPI-Lock: \(lockID)"])
            try #require(locked.status == 200, "\(locked)")
        }

        let lockID = "s3-fault-lock"

        func checkFileInfo() async throws -> [String: Any] {
            let response = try await RawHTTPConnection.request(port: port, "GET", "\(path)?\(query)")
            return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "\(response)")
        }

        /// The file's Version is `version` and its content what `wopi files add` stored.
        func expectUntouched(version: String?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let info = try await checkFileInfo()
            #expect(version != nil && info["Version"] as? String == version && info["Size"] as? Int == original.count, "\(info)",
                    sourceLocation: sourceLocation)
            let body = try await RawHTTPConnection.request(port: port, "GET", "\(path)/contents?\(query)")
            #expect(body.status == 200 && body.body == original, "GetFile: \(body.status), \(body.body.count) bytes", sourceLocation: sourceLocation)
        }

        /// Sweeps with `wopi blobs sweep --older-than 0` until the bucket holds the file's body alone and no
        /// unfinished upload (a request the stalled server took in may still land after it resumed).
        func expectNothingLeft(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let deadline = Date().addingTimeInterval(30)
            var contents: Set<String> = []
            repeat {
                let swept = try await WopiProcess.run(["blobs", "sweep", "--older-than", "0"] + storageArguments,
                                                      environment: S3CLITests.environment(server), timeout: 60)
                #expect(swept.exitCode == 0, "\(swept.stderr)", sourceLocation: sourceLocation)
                contents = try await store.contents()
                if contents.count == 1, !contents.contains(where: { $0.hasPrefix("upload:") }) { return }
                try await Task.sleep(for: .milliseconds(200))
            } while Date() < deadline
            Issue.record("left in the bucket after the sweep: \(contents.sorted())", sourceLocation: sourceLocation)
        }
    }

    /// An answer a client can act on for an object store that is down: 503, when to retry, and why.
    static func expectUnavailable(_ response: RawHTTPConnection.Response, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 503, "\(response)", sourceLocation: sourceLocation)
        #expect(Int(response.header("Retry-After") ?? "").map { $0 > 0 } == true, "\(response.headers)", sourceLocation: sourceLocation)
        let reason = response.header("X-WOPI-ServerError") ?? ""
        #expect(reason.contains("document store is unavailable") && reason.contains("did not answer within \(callTimeout) s"),
                "X-WOPI-ServerError: \(reason)", sourceLocation: sourceLocation)
    }

    @Test("a small save while the object store stalls: 503 with Retry-After and the reason; content and Version kept; nothing left",
          .timeLimit(.minutes(5)))
    func smallSaveWhileStalled() async throws {
        let setup = try await Setup()
        defer { setup.stop() }
        let version = try await setup.checkFileInfo()["Version"] as? String
        try await setup.lock()
        setup.stall()
        let save = try await RawHTTPConnection.request(port: setup.port, "POST", "\(setup.path)/contents?\(setup.query)",
                                                       ["X-WOPI-Override: PUT", "X-WOPI-Lock: \(setup.lockID)"], body: Data(repeating: 0x42, count: 100_000))
        Self.expectUnavailable(save)
        // GetFile is bounded the same way.
        Self.expectUnavailable(try await RawHTTPConnection.request(port: setup.port, "GET", "\(setup.path)/contents?\(setup.query)"))
        setup.resume()
        try await setup.expectUntouched(version: version)
        try await setup.expectNothingLeft()
        #expect(setup.host.log.contains("document store is unavailable") || setup.host.log.contains("did not answer"), "\(setup.host.log.suffix(2000))")
    }

    @Test("a multipart save while the object store stalls mid-upload: the whole body is read, then 503; the upload is aborted",
          .timeLimit(.minutes(5)))
    func multipartSaveStalledMidUpload() async throws {
        let setup = try await Setup()
        defer { setup.stop() }
        let version = try await setup.checkFileInfo()["Version"] as? String
        try await setup.lock()
        let size = 3 * S3BlobStore.minimumPartSize
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let connection = try RawHTTPConnection(port: setup.port)
        let head = RawHTTPConnection.head("POST", "\(setup.path)/contents?\(setup.query)", ["X-WOPI-Override: PUT", "X-WOPI-Lock: \(setup.lockID)"], contentLength: size)
        // Enough for the first part to go up: the upload exists on the server before it stalls.
        let first = S3BlobStore.minimumPartSize + S3BlobStore.minimumPartSize / 2
        #expect(try await connection.write(head + body.prefix(first)))
        let deadline = Date().addingTimeInterval(60)
        while try await !setup.store.contents().contains(where: { $0.hasPrefix("upload:") }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try #require(try await setup.store.contents().contains { $0.hasPrefix("upload:") }, "the multipart upload never began")
        setup.stall()
        // The client goes on sending; the host reads it all and answers, rather than dropping the connection.
        #expect(try await connection.write(body.dropFirst(first)), "the host stopped reading the body")
        let answer = try #require(try await connection.readResponse(), "no answer: the connection was dropped")
        Self.expectUnavailable(answer)
        setup.resume()
        try await setup.expectUntouched(version: version)
        try await setup.expectNothingLeft()
    }

    @Test("GetFile of a body missing from the bucket: 500 naming it, not an empty answer")
    func missingBody() async throws {
        let setup = try await Setup()
        defer { setup.stop() }
        let objects = try await setup.store.contents()
        try #require(objects.count == 1)
        let key = try #require(blobKey(named: objects.first!, prefix: setup.store.s3Location.prefix))
        try await setup.store.delete(key)
        let response = try await RawHTTPConnection.request(port: setup.port, "GET", "\(setup.path)/contents?\(setup.query)")
        #expect(response.status == 500, "\(response)")
        #expect(response.header("X-WOPI-ServerError") == "the document's body is missing from the document store")
        #expect(response.header("Retry-After") == nil, "retrying will not bring it back")
    }

    @Test("a server that reports every upload as started in 2010: the sweeps abort the uploads whose keys are old, never another host's upload in progress",
          .timeLimit(.minutes(5)))
    func wrongInitiatedTimes() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let blobs = try await S3CLITests.makeBucket(on: server)
        let credentials = S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey)
        let direct = S3BlobStore(location: try S3Location(parsing: blobs), credentials: credentials, http: S3CLITests.http)
        let work = S3CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let environment = S3CLITests.environment(server)
        // Another host's upload in progress, made now, and two a crash left two hours ago.
        let live = direct.client.objectKey(BlobKey.random().rawValue)
        let stale = direct.client.objectKey(BlobKey.random(at: Date().addingTimeInterval(-7200)).rawValue)
        let staleAtStart = direct.client.objectKey(BlobKey.random(at: Date().addingTimeInterval(-7200)).rawValue)
        for key in [live, stale] { _ = try await direct.client.createMultipartUpload(key) }

        try await InitiatedRewritingProxy.withRunning(target: server.s3Port) { proxy in
            let throughProxy = blobs.replacingOccurrences(of: server.endpoint, with: "http://127.0.0.1:\(proxy.port)")
            let storage = ["--data", work.appendingPathComponent("data").path, "--blobs", throughProxy]
            let seen = try await S3BlobStore(location: try S3Location(parsing: throughProxy), credentials: credentials, http: S3CLITests.http)
                .client.listMultipartUploads(keyMarker: nil, uploadIDMarker: nil)
            #expect(seen.uploads.count == 2 && seen.uploads.allSatisfy { $0.initiated.hasPrefix("2010") }, "\(seen.uploads.map(\.initiated))")

            let swept = try await WopiProcess.run(["blobs", "sweep"] + storage, environment: environment, timeout: 60)
            #expect(swept.exitCode == 0 && swept.stdout.contains("\"removed\":1"), "\(swept.stdout) \(swept.stderr)")
            #expect(try await direct.contents() == ["upload:\(live)"], "the command's sweep")

            // The host's sweep at start, before it listens.
            _ = try await direct.client.createMultipartUpload(staleAtStart)
            let port = try LocalPort.free()
            let host = try WopiServer.launch(["--host", "127.0.0.1", "--port", "\(port)"] + storage, environment: environment)
            defer { host.stop() }
            try await S3CLITests.waitUntilReady(port: port, host: host)
            // (The host's first start adds the demo files' bodies: objects, not uploads.)
            #expect(try await direct.contents().filter { $0.hasPrefix("upload:") } == ["upload:\(live)"], "the start-up sweep: \(host.log.suffix(2000))")
            #expect(proxy.rewritten >= 4, "the proxy rewrote \(proxy.rewritten) times")
        }
    }
}

/// The blob key of object `name` under `prefix`.
private func blobKey(named name: String, prefix: String) -> BlobKey? {
    name.hasPrefix(prefix) ? BlobKey(String(name.dropFirst(prefix.count))) : nil
}
