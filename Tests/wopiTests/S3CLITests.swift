import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
@testable import WOPIBlobStoreS3
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--blobs s3://…` through the real CLI, against a real SeaweedFS that checks signatures.
@Suite("Bodies in S3 through the CLI", .serialized)
struct S3CLITests {
    static let http = S3BlobStore.makeHTTPClient()

    /// A new bucket on `server` and its `--blobs` URL.
    static func makeBucket(on server: SeaweedFSTestServer) async throws -> String {
        let url = "s3://\(SeaweedFSTestServer.makeBucketName())/wopi?endpoint=\(server.endpoint)&region=us-east-1"
        let store = S3BlobStore(location: try S3Location(parsing: url),
                                credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey), http: http)
        try await store.createBucket()
        return url
    }

    static func environment(_ server: SeaweedFSTestServer, secret: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_ACCESS_KEY_ID"] = server.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = secret ?? server.secretAccessKey
        return environment
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wopi-s3-cli-\(UUID().uuidString)", isDirectory: true)
    }

    @Test("files add and serve keep bodies in the bucket; GetFile streams them back; WOPI_BLOBS works too", .timeLimit(.minutes(10)))
    func roundTrip() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let blobs = try await Self.makeBucket(on: server)
        let work = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let data = work.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let document = work.appendingPathComponent("Notes.docx")
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try content.write(to: document)
        let environment = Self.environment(server)

        let user = try await WopiProcess.run(["users", "add", "sam", "--password", "s3-cli-password", "--data", data.path, "--blobs", blobs], environment: environment)
        try #require(user.exitCode == 0, "\(user.stderr)")
        let added = try await WopiProcess.run(["files", "add", document.path, "--owner", "sam", "--data", data.path, "--blobs", blobs], environment: environment)
        try #require(added.exitCode == 0, "files add: \(added.stderr)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let localBodies = (FileManager.default.enumerator(atPath: data.appendingPathComponent("blobs").path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasPrefix(".") && $0.contains("/") }
        #expect(localBodies.isEmpty, "bodies in the local folder: \(localBodies)")
        let minted = try await WopiProcess.run(["token", "--user", "sam", "--file", id, "--data", data.path, "--blobs", blobs], environment: environment)
        let token = try #require((try JSONSerialization.jsonObject(with: Data(minted.stdout.utf8)) as? [String: Any])?["access_token"] as? String)

        var serveEnvironment = environment
        serveEnvironment["WOPI_BLOBS"] = blobs
        let port = try LocalPort.free()
        let host = try WopiServer.launch(["--host", "127.0.0.1", "--port", "\(port)", "--data", data.path], environment: serveEnvironment)
        defer { host.stop() }
        try await Self.waitUntilReady(port: port, host: host)
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/wopi/files/\(id)/contents?access_token=\(token)"), timeout: .seconds(30))
        #expect(response.status.code == 200)
        #expect(response.headers.first(name: "Content-Length") == "\(content.count)")
        #expect(Data(try await response.body.collect(upTo: 1 << 20).readableBytesView) == content)
        #expect(!host.log.contains(server.secretAccessKey), "the secret never reaches the log")
    }

    @Test("A wrong secret: serve and an admin command refuse to start with one line naming it, exit 2")
    func badCredentials() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let blobs = try await Self.makeBucket(on: server)
        let work = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let secret = "wrong-secret-\(UUID().uuidString)"
        for arguments in [["serve", "--port", "\(try LocalPort.free())"], ["users", "list"]] {
            let run = try await WopiProcess.run(arguments + ["--data", work.path, "--blobs", blobs], environment: Self.environment(server, secret: secret))
            #expect(run.exitCode == 2, "\(arguments[0]): \(run.exitCode) \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("refused the credentials") && lines[0].contains("SignatureDoesNotMatch"), "\(run.stderr)")
            #expect(!run.stderr.contains(secret) && !run.stdout.contains(secret))
        }
        // The same through --s3-credentials.
        let file = try server.writeCredentialsFile(secret: secret)
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_ACCESS_KEY_ID"] = nil
        environment["AWS_SECRET_ACCESS_KEY"] = nil
        let run = try await WopiProcess.run(["serve", "--port", "\(try LocalPort.free())", "--data", work.path, "--blobs", blobs, "--s3-credentials", file.path],
                                      environment: environment)
        #expect(run.exitCode == 2 && run.stderr.contains("SignatureDoesNotMatch") && !run.stderr.contains(secret), "\(run.stderr)")
    }

    @Test("No credentials, an unreachable endpoint, a wrong region, a malformed URL: one line each, exit 2, within seconds")
    func refusalsAtStart() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let blobs = try await Self.makeBucket(on: server)
        let work = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        var bare = ProcessInfo.processInfo.environment
        bare["AWS_ACCESS_KEY_ID"] = nil
        bare["AWS_SECRET_ACCESS_KEY"] = nil

        let missing = try await WopiProcess.run(["serve", "--port", "\(try LocalPort.free())", "--data", work.path, "--blobs", blobs], environment: bare)
        #expect(missing.exitCode == 2 && missing.stderr.contains("AWS_ACCESS_KEY_ID") && missing.stderr.split(separator: "\n").count == 1,
                "\(missing.stderr)")

        let closedPort = try LocalPort.free()
        let started = Date()
        let unreachable = try await WopiProcess.run(["serve", "--port", "\(try LocalPort.free())", "--data", work.path,
                                               "--blobs", "s3://wopi-nowhere?endpoint=http://127.0.0.1:\(closedPort)&region=us-east-1"],
                                              environment: Self.environment(server))
        #expect(unreachable.exitCode == 2 && unreachable.stderr.contains("cannot reach the S3 endpoint http://127.0.0.1:\(closedPort)"),
                "\(unreachable.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)

        let malformed = try await WopiProcess.run(["users", "list", "--data", work.path, "--blobs", "s3://Not_A_Bucket"], environment: Self.environment(server))
        #expect(malformed.exitCode == 2 && malformed.stderr.contains("is not a bucket name"), "\(malformed.stderr)")

        // SeaweedFS signs any region, so the wrong-region answer comes from a stand-in that answers as AWS does.
        try await Self.withWrongRegionEndpoint(actualRegion: "eu-central-1") { port in
            let run = try await WopiProcess.run(["serve", "--port", "\(try LocalPort.free())", "--data", work.path,
                                           "--blobs", "s3://wopi-elsewhere?endpoint=http://127.0.0.1:\(port)&region=us-east-1"],
                                          environment: Self.environment(server))
            #expect(run.exitCode == 2, "\(run.stderr)")
            #expect(run.stderr.contains("region us-east-1 is wrong") && run.stderr.contains("the bucket is in eu-central-1"), "\(run.stderr)")
        }
    }

    @Test("The object store lost while serving: /health/ready says 503 within seconds, and 200 while it works", .timeLimit(.minutes(10)))
    func endpointLost() async throws {
        let server = try await offPool { try SeaweedFSTestServer.startPrivate() }
        defer { server.stop() }
        let blobs = try await Self.makeBucket(on: server)
        let work = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let port = try LocalPort.free()
        let host = try WopiServer.launch(["--host", "127.0.0.1", "--port", "\(port)", "--data", work.path, "--blobs", blobs],
                                         environment: Self.environment(server))
        defer { host.stop() }
        try await Self.waitUntilReady(port: port, host: host)
        try await offPool { server.stop() }
        let started = Date()
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health/ready"), timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 16))
        #expect(response.status.code == 503, "\(text)")
        #expect(text.contains("blobs") && text.contains(server.endpoint), "\(text)")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    // MARK: Helpers

    static func waitUntilReady(port: Int, host: WopiServer) async throws {
        try await host.waitUntilListening(port: port)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health/ready"), timeout: .seconds(5)),
               response.status.code == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the host on port \(port) did not become ready:\n\(host.log)")
        throw CancellationError()
    }

    /// An endpoint that answers every request as S3 answers a request signed for the wrong region.
    static func withWrongRegionEndpoint(actualRegion: String, _ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        router.get("{bucket}") { _, _ in
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <Error><Code>AuthorizationHeaderMalformed</Code><Message>The authorization header is malformed; the region \
                'us-east-1' is wrong; expecting '\(actualRegion)'</Message><Region>\(actualRegion)</Region></Error>
                """
            return Response(status: .badRequest, headers: [.contentType: "application/xml"], body: .init(byteBuffer: ByteBuffer(string: xml)))
        }
        try await LoopbackServer.serve(router, label: "WrongRegionEndpoint") { url in
            try await body(url.port ?? 0)
        }
    }
}
