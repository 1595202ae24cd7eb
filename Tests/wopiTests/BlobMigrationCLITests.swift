import Foundation
import TestSupport
import Testing
@testable import WOPIBlobStoreS3
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `wopi blobs migrate --to`: every body of a data folder moved from its folder into a bucket, with the first run
/// killed part-way and the second finishing it; afterwards the host serves every file from the bucket, byte for byte.
@Suite("wopi blobs migrate", .serialized)
struct BlobMigrationCLITests {
    static let fileCount = 16
    static let bodySize = 1024 * 1024

    @Test("killed after some bodies and run again: every body in the bucket with its bytes, the record switched, the folder left",
          .timeLimit(.minutes(10)))
    func interruptedAndResumed() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let bucket = try await S3CLITests.makeBucket(on: server)
        let work = S3CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let data = work.appendingPathComponent("data")
        let environment = S3CLITests.environment(server)
        func run(_ arguments: [String]) async throws -> WopiProcess.Result {
            try await WopiProcess.run(arguments + ["--data", data.path], environment: environment, timeout: 120)
        }
        func json(_ result: WopiProcess.Result) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        // Sixteen files in the data folder's own blobs/, and a kept version of the first.
        try #require(try await run(["users", "add", "alice", "--password", "migrate-password-1"]).exitCode == 0)
        var contents: [String: Data] = [:]
        for index in 0..<Self.fileCount {
            let document = work.appendingPathComponent("Doc\(index).docx")
            let content = Self.randomBytes(Self.bodySize)
            try content.write(to: document)
            let added = try await run(["files", "add", document.path, "--owner", "alice"])
            let id = try #require(json(added)["id"] as? String, "files add: \(added.stderr)")
            contents[id] = content
        }
        let edited = try #require(contents.keys.sorted().first)
        let newContent = Self.randomBytes(300_000)
        do {
            let host = try await WopiServer.start(data: data)
            defer { host.stop() }
            let token = try #require(json(try await run(["token", "--user", "alice", "--file", edited]))["access_token"] as? String)
            let path = "/wopi/files/\(edited)"
            let locked = try await RawHTTPConnection.request(port: host.port, "POST", "\(path)?access_token=\(token)",
                                                             ["X-WOPI-Override: LOCK", "X-WOPI-Lock: migrate-lock"])
            try #require(locked.status == 200, "\(locked)")
            let saved = try await RawHTTPConnection.request(port: host.port, "POST", "\(path)/contents?access_token=\(token)",
                                                            ["X-WOPI-Override: PUT", "X-WOPI-Lock: migrate-lock"], body: newContent)
            try #require(saved.status == 200, "\(saved)")
        }
        let bodies = Self.fileCount + 1
        let folder = data.appendingPathComponent("blobs")
        #expect(Self.bodyFiles(in: folder).count == bodies)

        // The first run, killed once it reports three bodies done.
        let stopAfter = 3
        let log = work.appendingPathComponent("migrate.log")
        let first = try Self.launch(["blobs", "migrate", "--to", bucket, "--data", data.path], environment: environment, log: log)
        let sawProgress = try await offPool { () -> Bool in
            let deadline = Date().addingTimeInterval(120)
            while first.isRunning, Date() < deadline {
                if ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("wopi: \(stopAfter)/\(bodies) bodies") {
                    kill(first.processIdentifier, SIGKILL)
                    return true
                }
                Thread.sleep(forTimeInterval: 0.002)
            }
            return false
        }
        try await offPool { first.waitUntilExit() }
        let firstLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try #require(sawProgress, "the first run ended before it reported \(stopAfter) bodies: \(firstLog)")
        try #require(first.terminationReason == .uncaughtSignal, "the first run finished before the kill landed: \(firstLog)")
        let store = S3BlobStore(location: try S3Location(parsing: bucket),
                                credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey), http: S3CLITests.http)
        let copiedFirst = try await store.contents().filter { !$0.hasPrefix("upload:") }
        #expect(copiedFirst.count >= stopAfter && copiedFirst.count < bodies, "\(copiedFirst.count) objects after the killed run")
        // Not switched: the storage still opens with its folder, and refuses the bucket.
        #expect(try await run(["users", "list"]).exitCode == 0)
        #expect(try await run(["users", "list", "--blobs", bucket]).exitCode == 2)

        // Bad input changes nothing: the current store as target, a target that is no store.
        let same = try await run(["blobs", "migrate", "--to", folder.path])
        #expect(same.exitCode == 2 && same.stderrLines.count == 1 && same.stderr.contains("already in"), "\(same.stderr)")
        let malformed = try await run(["blobs", "migrate", "--to", "s3://Not_A_Bucket"])
        #expect(malformed.exitCode == 2 && malformed.stderr.contains("is not a bucket name"), "\(malformed.stderr)")

        // The second run skips what the first copied and finishes.
        let second = try await run(["blobs", "migrate", "--to", bucket])
        try #require(second.exitCode == 0, "\(second.stderr)")
        let report = json(second)
        #expect(report["bodies"] as? Int == bodies, "\(report)")
        let skipped = report["already_there"] as? Int ?? -1
        #expect(skipped >= copiedFirst.count && (report["copied"] as? Int ?? -1) == bodies - skipped, "\(report)")
        #expect(second.stderrLines.filter { $0.hasSuffix("already there") }.count == skipped, "\(second.stderr)")
        #expect(second.stderr.contains("\(bodies)/\(bodies) bodies"), "progress: \(second.stderr)")
        #expect(second.stderr.contains("the old bodies are still in \(folder.path)"), "\(second.stderr)")
        #expect(try await store.contents().filter { !$0.hasPrefix("upload:") }.count == bodies)
        #expect(Self.bodyFiles(in: folder).count == bodies, "the folder's bodies are left in place")

        // Switched: the folder is refused now, the bucket serves every file with its bytes.
        let refused = try await run(["users", "list"])
        let recordedBucket = try S3Location(parsing: bucket).description
        #expect(refused.exitCode == 2 && refused.stderr.contains("keeps its bodies in \(recordedBucket)"), "\(refused.stderr)")
        let port = try LocalPort.free()
        let host = try WopiServer.launch(["--host", "127.0.0.1", "--port", "\(port)", "--data", data.path, "--blobs", bucket], environment: environment)
        defer { host.stop() }
        try await S3CLITests.waitUntilReady(port: port, host: host)
        for (id, content) in contents {
            let token = try #require(json(try await run(["token", "--user", "alice", "--file", id, "--blobs", bucket]))["access_token"] as? String)
            let body = try await RawHTTPConnection.request(port: port, "GET", "/wopi/files/\(id)/contents?access_token=\(token)")
            #expect(body.status == 200 && body.body == (id == edited ? newContent : content), "GetFile \(id): \(body.status), \(body.body.count) bytes")
        }
    }

    @Test("a body missing from the current store: exit 1 naming it and how far the copy got; nothing switched")
    func missingBodyStopsIt() async throws {
        let work = S3CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let data = work.appendingPathComponent("data")
        func run(_ arguments: [String]) async throws -> WopiProcess.Result {
            try await WopiProcess.run(arguments + ["--data", data.path], timeout: 60)
        }
        try #require(try await run(["users", "add", "alice", "--password", "migrate-password-1"]).exitCode == 0)
        for index in 0..<3 {
            let document = work.appendingPathComponent("Doc\(index).docx")
            try Self.randomBytes(10_000).write(to: document)
            try #require(try await run(["files", "add", document.path, "--owner", "alice"]).exitCode == 0)
        }
        let folder = data.appendingPathComponent("blobs")
        let lost = try #require(Self.bodyFiles(in: folder).sorted().last)
        try FileManager.default.removeItem(at: folder.appendingPathComponent(lost))
        let target = work.appendingPathComponent("new-bodies")

        let failed = try await run(["blobs", "migrate", "--to", target.path])
        #expect(failed.exitCode == 1, "\(failed.stderr)")
        let error = failed.stderrLines.last ?? ""
        #expect(error.hasPrefix("wopi: error: body \(lost.split(separator: "/").last!): missing from the current store; 2 of 3 bodies")
                && error.contains("are in \(target.path)") && error.contains("still keeps its bodies in \(folder.path)"), "\(failed.stderr)")
        #expect(failed.stdout.isEmpty)
        #expect(Self.bodyFiles(in: target).count == 2)
        // Not switched: the folder still opens, the target is still refused.
        #expect(try await run(["users", "list"]).exitCode == 0)
        #expect(try await run(["users", "list", "--blobs", target.path]).exitCode == 2)
    }

    /// `count` random bytes: every body differs.
    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var words = [UInt64](repeating: 0, count: (count + 7) / 8)
        for index in words.indices { words[index] = generator.next() }
        return words.withUnsafeBytes { Data($0.prefix(count)) }
    }

    /// The bodies in a folder store (its fan-out folders, not its staging folder).
    static func bodyFiles(in folder: URL) -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasPrefix(".") && $0.split(separator: "/").count == 2 }
    }

    /// Starts `wopi` with its output in `log` (a file, read while it runs), not waiting for it.
    static func launch(_ arguments: [String], environment: [String: String], log: URL) throws -> ChildProcess {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: log)
        let process = ChildProcess()
        process.executableURL = try WopiProcess.executableURL()
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
