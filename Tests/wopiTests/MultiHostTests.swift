import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import WOPIValidator
@testable import WOPIBlobStoreS3
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Several hosts end to end, on real processes: two `wopi serve` on one PostgreSQL database and one body
/// folder, behind nginx balancing round-robin, with `--public-url` the nginx address.
@Suite("Two hosts on PostgreSQL behind nginx", .serialized)
struct MultiHostTests {
    static let password = "multi-host-password-1"
    static let clientID = "office-multi-host"
    static let clientSecret = "office-multi-host-secret-\(UUID().uuidString)"
    static let appScheme = "wopikit-multi"

    /// Where the hosts keep document bodies.
    enum Bodies: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// One folder both hosts mount.
        case folder
        /// One bucket on a SeaweedFS S3 gateway that checks signatures.
        case s3

        var testDescription: String { rawValue }
    }

    /// Two hosts, a proxy, and the shared storage.
    final class Cluster: @unchecked Sendable {
        let work: URL
        let database: String
        let blobs: URL
        /// The bucket's store when the bodies are in S3.
        let bucket: S3BlobStore?
        let blobArguments: [String]
        let hosts: [WopiServer]
        let proxy: NginxTestProxy

        /// Starts both hosts, then nginx on the port they were told is their public URL. `pinned` routes
        /// path prefixes to one host (by index) so a test controls which host sees which step.
        init(pinned: [String: Int] = [:], bodies: Bodies = .folder) async throws {
            work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-multi-\(UUID().uuidString)", isDirectory: true)
            blobs = work.appendingPathComponent("shared-blobs")
            try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
            switch bodies {
            case .folder:
                bucket = nil
                blobArguments = ["--blobs", blobs.path]
            case .s3:
                let server = try await offPool { try SeaweedFSTestServer.shared() }
                let url = "s3://\(SeaweedFSTestServer.makeBucketName())/bodies?endpoint=\(server.endpoint)&region=us-east-1"
                let store = S3BlobStore(location: try S3Location(parsing: url),
                                        credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey),
                                        http: MultiHostTests.s3Client)
                try await store.createBucket()
                bucket = store
                blobArguments = ["--blobs", url, "--s3-credentials", try server.writeCredentialsFile().path]
            }
            database = try await offPool { try PostgresTestServer.shared().makeDatabase() }
            let proxyPort = try LocalPort.free()
            var started: [WopiServer] = []
            do {
                for index in 0..<2 {
                    started.append(try await WopiServer.start(data: work.appendingPathComponent("host\(index)"), extraArguments: [
                        "--database", database, "--public-url", "http://127.0.0.1:\(proxyPort)",
                        "--office-client-id", MultiHostTests.clientID, "--office-client-secret", MultiHostTests.clientSecret,
                        "--ios-url-scheme", MultiHostTests.appScheme,
                    ] + blobArguments))
                }
                hosts = started
                let upstreamPorts = started.map(\.port), pinnedPorts = pinned.mapValues { started[$0].port }
                proxy = try await offPool { try NginxTestProxy.start(port: proxyPort, upstreamPorts: upstreamPorts, pinned: pinnedPorts) }
            } catch {
                started.forEach { $0.stop() }
                try? FileManager.default.removeItem(at: work)
                throw error
            }
        }

        var storageArguments: [String] { ["--database", database, "--data", work.appendingPathComponent("cli").path] + blobArguments }

        /// `wopi ARGUMENTS` with this cluster's storage options, expecting one JSON object.
        func cli(_ arguments: [String]) async throws -> [String: Any] {
            let result = try await WopiProcess.run(arguments + storageArguments, timeout: 60)
            #expect(result.exitCode == 0, "wopi \(arguments.joined(separator: " ")) failed: \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "not JSON: \(result.stdout)")
        }

        /// A user with one document, added through the CLI while both hosts run; returns the file id and a token.
        func addDocument(user: String, name: String, content: Data) async throws -> (fileID: String, userID: String, token: String, wopiSrc: String) {
            let added = try await cli(["users", "add", user, "--password", MultiHostTests.password])
            let userID = try #require(added["id"] as? String)
            let path = work.appendingPathComponent(name)
            try content.write(to: path)
            let file = try await cli(["files", "add", path.path, "--owner", user])
            let fileID = try #require(file["id"] as? String)
            let minted = try await cli(["token", "--user", user, "--file", fileID])
            let wopiSrc = try #require(minted["wopi_src"] as? String)
            #expect(wopiSrc == "\(proxy.baseURL)/wopi/files/\(fileID)", "the WOPISrc must be the proxy's address: \(wopiSrc)")
            return (fileID, userID, try #require(minted["access_token"] as? String), wopiSrc)
        }

        /// Which upstream ports answered requests whose line contains `fragment`, in order.
        func upstreams(serving fragment: String) -> [String] {
            proxy.accessLog.split(separator: "\n").filter { $0.contains(fragment) }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("upstream=") }.map { String($0.dropFirst("upstream=".count)) }
            }
        }

        func stop() {
            proxy.stop()
            hosts.forEach { $0.stop() }
            try? FileManager.default.removeItem(at: work)
        }
    }

    /// Talks to the SeaweedFS bucket behind the hosts' backs.
    static let s3Client = S3BlobStore.makeHTTPClient()

    @Test("Microsoft's validator through nginx over two hosts: 0 failures", .timeLimit(.minutes(15)), arguments: Bodies.allCases)
    func validatorThroughTheProxy(_ bodies: Bodies) async throws {
        let cluster = try await Cluster(bodies: bodies)
        defer { cluster.stop() }
        let document = try await cluster.addDocument(user: "validator", name: "test.wopitest", content: Data())
        let ttl = Int64(Date().addingTimeInterval(3600).timeIntervalSince1970 * 1000)
        let report = try await ConformanceTests.runValidator(wopiSrc: document.wopiSrc, accessToken: document.token, accessTokenTTL: ttl)
        #expect(report.totals.failed == 0)
        #expect(report.totals.passed >= 60, "only \(report.totals.passed) cases passed")
        let served = Set(cluster.upstreams(serving: "/wopi/files/"))
        #expect(served == Set(cluster.hosts.map { "127.0.0.1:\($0.port)" }), "both hosts must have answered the validator: \(served)")
    }

    @Test("wopi simulate through nginx: app-to-app and web sign-in, each code issued by one host and redeemed at the other",
          .timeLimit(.minutes(5)), arguments: ["app-to-app", "web"])
    func simulateThroughTheProxy(_ signIn: String) async throws {
        // The code is issued on host 0 (authorize / app-to-app) and redeemed on host 1 (token); the rest alternates.
        let cluster = try await Cluster(pinned: ["/oauth2/authorize": 0, "/oauth2/app-to-app": 0, "/oauth2/token": 1])
        defer { cluster.stop() }
        let original = Data("the report before the edit\n".utf8)
        let document = try await cluster.addDocument(user: "alice", name: "Report.docx", content: original)
        let link = try await WopiProcess.run(["link", "--app", "word", "--mode", "edit", "--wopi-src", document.wopiSrc, "--service", "WOPIKit",
                                        "--user", document.userID, "--name", "Report.docx", "--source", "app", "--passback", "clouddrive"])
        try #require(link.exitCode == 0, "link: \(link.stderr)")
        var arguments = ["simulate", link.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                         "--bootstrapper", "\(cluster.proxy.baseURL)/wopibootstrapper",
                         "--client-id", Self.clientID, "--client-secret", Self.clientSecret]
        if signIn == "web" {
            arguments += ["--username", "alice", "--password", Self.password]
        } else {
            let wopi = try WopiProcess.executableURL().path.replacingOccurrences(of: "'", with: "'\\''")
            arguments += ["--app-signin-command", "'\(wopi)' app-signin --server \(cluster.proxy.baseURL) --username alice --password \(Self.password)"]
        }
        let run = try await WopiProcess.run(arguments, timeout: 180)
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)\nhost 0:\n\(cluster.hosts[0].log)\nhost 1:\n\(cluster.hosts[1].log)")
        let passback = try #require(run.stdout.split(separator: "\n").last.map(String.init))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(try await WopiProcess.run(["parse", passback]).stdout.utf8)) as? [String: Any])
        #expect(parsed["kind"] as? String == "passback" && parsed["uploadPending"] as? Bool == false)

        let issued = cluster.upstreams(serving: signIn == "web" ? "POST /oauth2/authorize" : "POST /oauth2/app-to-app")
        let redeemed = cluster.upstreams(serving: "POST /oauth2/token")
        #expect(!issued.isEmpty && issued.allSatisfy { $0 == "127.0.0.1:\(cluster.hosts[0].port)" }, "codes issued by \(issued)")
        #expect(!redeemed.isEmpty && redeemed.allSatisfy { $0 == "127.0.0.1:\(cluster.hosts[1].port)" }, "codes redeemed by \(redeemed)")
        #expect(Set(cluster.upstreams(serving: "/wopi/files/")).count == 2, "both hosts served the file operations")

        // The save made through the proxy is what either host serves now.
        for host in cluster.hosts {
            let info = try await Self.send("GET", "\(host.baseURL)/wopi/files/\(document.fileID)?access_token=\(document.token)")
            #expect(info.status == 200)
            let content = try await Self.send("GET", "\(host.baseURL)/wopi/files/\(document.fileID)/contents?access_token=\(document.token)")
            #expect(content.body != original && content.body.starts(with: original), "host \(host.port) serves the saved content")
        }
    }

    @Test("64 clients racing to lock one file through two hosts: exactly one winner, every 409 carries its lock", .timeLimit(.minutes(5)))
    func lockRaceAcrossHosts() async throws {
        let cluster = try await Cluster()
        defer { cluster.stop() }
        let document = try await cluster.addDocument(user: "racer", name: "Race.xlsx", content: Data("cells".utf8))
        let urls = cluster.hosts.map { "\($0.baseURL)/wopi/files/\(document.fileID)?access_token=\(document.token)" }
        // A client of its own with room for all 64 connections, so every request is in flight at once.
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(
            connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)))
        let answers: [(String, Response)]
        do {
            answers = try await withThrowingTaskGroup(of: (String, Response).self) { group in
                for index in 0..<64 {
                    let lock = "lock-of-client-\(index)"
                    group.addTask {
                        (lock, try await Self.send("POST", urls[index % 2], ["X-WOPI-Override": "LOCK", "X-WOPI-Lock": lock], client: client))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        let winners = answers.filter { $0.1.status == 200 }
        try #require(winners.count == 1, "winners: \(winners.map(\.0)); statuses \(answers.map(\.1.status))")
        let winner = winners[0].0
        for (lock, response) in answers where lock != winner {
            #expect(response.status == 409 && response.headers["x-wopi-lock"] == winner, "\(lock): \(response.status) \(response.headers)")
        }
        for url in urls {
            let current = try await Self.send("POST", url, ["X-WOPI-Override": "GET_LOCK"])
            #expect(current.headers["x-wopi-lock"] == winner, "every host reports the winner's lock")
        }
    }

    @Test("SIGKILL of one host mid-PutFile: the other keeps serving, the file holds the old content with its Version",
          .timeLimit(.minutes(5)), arguments: Bodies.allCases)
    func oneHostKilledDuringPutFile(_ bodies: Bodies) async throws {
        let cluster = try await Cluster(bodies: bodies)
        defer { cluster.stop() }
        let original = Data(repeating: 0x41, count: 1 << 20)
        let document = try await cluster.addDocument(user: "survivor", name: "Big.pptx", content: original)
        let (victim, survivor) = (cluster.hosts[0], cluster.hosts[1])
        let path = "/wopi/files/\(document.fileID)"
        let lock = ["X-WOPI-Override": "LOCK", "X-WOPI-Lock": "kill-test"]
        #expect(try await Self.send("POST", "\(survivor.baseURL)\(path)?access_token=\(document.token)", lock).status == 200)
        let before = try await Self.send("GET", "\(survivor.baseURL)\(path)?access_token=\(document.token)")
        let beforeInfo = try #require(try JSONSerialization.jsonObject(with: before.body) as? [String: Any])

        let objectsBefore = try await cluster.bucket?.contents()

        // Stream 32 MiB to the victim; once it is writing the upload into the shared folder (or has a
        // multipart upload open in the bucket, which takes more than one 8 MiB part), kill it.
        let staging = cluster.blobs.appendingPathComponent(".staging")
        let bucket = cluster.bucket
        let isWriting: @Sendable () -> Bool = {
            guard let bucket else { return victim.isWriting(under: staging) }
            return Self.blocking { try await bucket.contents() }?.contains { $0.hasPrefix("upload:") } ?? false
        }
        let chunk = ByteBuffer(repeating: 0x42, count: 256 * 1024)
        let body = AsyncStream<ByteBuffer> { continuation in
            Thread.detachNewThread {
                for index in 0..<128 {
                    continuation.yield(chunk)
                    if index == (bucket == nil ? 16 : 40) {
                        let deadline = Date().addingTimeInterval(20)
                        while !isWriting(), Date() < deadline {
                            Thread.sleep(forTimeInterval: 0.01)
                        }
                        victim.stop(signal: SIGKILL)
                        break
                    }
                    Thread.sleep(forTimeInterval: 0.005)
                }
                continuation.finish()
            }
        }
        var put = HTTPClientRequest(url: "\(victim.baseURL)\(path)/contents?access_token=\(document.token)")
        put.method = .POST
        put.headers.add(name: "X-WOPI-Override", value: "PUT")
        put.headers.add(name: "X-WOPI-Lock", value: "kill-test")
        put.body = .stream(body, length: .known(Int64(128 * chunk.readableBytes)))
        let outcome = try? await HTTPClient.shared.execute(put, timeout: .seconds(60))
        #expect(outcome == nil || outcome?.status.code != 200, "the killed host cannot have saved the file")

        // The survivor answers, and the file is the old content with the old Version and SHA256.
        let after = try await Self.send("GET", "\(survivor.baseURL)\(path)?access_token=\(document.token)")
        try #require(after.status == 200, "the surviving host must answer: \(after.status)\n\(survivor.log)")
        let afterInfo = try #require(try JSONSerialization.jsonObject(with: after.body) as? [String: Any])
        #expect(afterInfo["Version"] as? String == beforeInfo["Version"] as? String)
        #expect(afterInfo["SHA256"] as? String == beforeInfo["SHA256"] as? String)
        #expect(try await Self.send("GET", "\(survivor.baseURL)\(path)/contents?access_token=\(document.token)").body == original)
        if let bucket, let objectsBefore {
            // No object was completed: the killed upload stays an unfinished multipart upload, for the sweep.
            let objectsAfter = try await bucket.contents()
            #expect(objectsBefore.filter { !$0.hasPrefix("upload:") } == objectsAfter.filter { !$0.hasPrefix("upload:") })
            #expect(objectsAfter.contains { $0.hasPrefix("upload:") }, "the victim had a multipart upload open when it died")
        }
        // Through the proxy too: nginx moves the request to the surviving host.
        #expect(try await Self.send("GET", "\(document.wopiSrc)?access_token=\(document.token)").status == 200)

        // The lock still holds, and a save through the survivor works and is what it serves.
        let saved = Data("saved after the other host died".utf8)
        let retry = try await Self.send("POST", "\(survivor.baseURL)\(path)/contents?access_token=\(document.token)",
                                        ["X-WOPI-Override": "PUT", "X-WOPI-Lock": "kill-test"], body: saved)
        #expect(retry.status == 200, "PutFile on the survivor: \(retry.status)")
        #expect(try await Self.send("GET", "\(survivor.baseURL)\(path)/contents?access_token=\(document.token)").body == saved)
    }

    /// Runs async work from a plain thread and waits for it; `nil` when it throws.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> T? {
        let result = LockedResult<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            result.set(try? await work())
            done.signal()
        }
        done.wait()
        return result.get()
    }

    // MARK: HTTP

    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
    }

    static func send(_ method: String, _ url: String, _ headers: [String: String] = [:], body: Data = Data(),
                     client: HTTPClient = .shared) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if method == "POST" { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Response(status: Int(response.status.code),
                        headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first }),
                        body: Data(collected.readableBytesView))
    }
}

/// A value handed from a task to a waiting thread.
private final class LockedResult<T: Sendable>: @unchecked Sendable {
    private var value: T?
    private let lock = NSLock()
    func set(_ newValue: T?) { lock.lock(); value = newValue; lock.unlock() }
    func get() -> T? { lock.lock(); defer { lock.unlock() }; return value }
}
