import Foundation
import TestSupport
import Testing
@testable import WOPIBlobStoreS3

/// The storage remembers where its bodies live, on SQLite and on PostgreSQL: a command or host opened with another
/// store, or with none while a bucket is recorded, stops with one line naming both and writes no body anywhere; the
/// record names the bucket and never the keys.
@Suite("The storage records its body store", .serialized)
struct BlobStoreRecordCLITests {
    enum Database: String, CaseIterable, Sendable { case sqlite, postgresql }

    @Test("another or a missing --blobs: exit 2, one line naming the recorded store and the given one, nothing written",
          .timeLimit(.minutes(10)), arguments: Database.allCases)
    func mismatchedStoreIsRefused(_ database: Database) async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let bucket = try await S3CLITests.makeBucket(on: server)
        let recordedBucket = try S3Location(parsing: bucket).description
        let work = S3CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let data = work.appendingPathComponent("data")
        var storage = ["--data", data.path]
        var postgres: (server: PostgresTestServer, name: String)?
        if database == .postgresql {
            let server = try await offPool { try PostgresTestServer.shared() }
            let url = try await offPool { try server.makeDatabase() }
            postgres = (server, String(url.split(separator: "/").last!))
            storage += ["--database", url]
        }
        let environment = S3CLITests.environment(server)
        let document = work.appendingPathComponent("Plan.docx")
        try Data("the plan".utf8).write(to: document)
        func run(_ arguments: [String]) async throws -> WopiProcess.Result {
            try await WopiProcess.run(arguments, environment: environment, timeout: 60)
        }

        let added = try await run(["users", "add", "alice", "--password", "record-password-1", "--blobs", bucket] + storage)
        try #require(added.exitCode == 0, "users add: \(added.stderr)")
        let file = try await run(["files", "add", document.path, "--owner", "alice", "--blobs", bucket] + storage)
        try #require(file.exitCode == 0, "files add: \(file.stderr)")
        let store = S3BlobStore(location: try S3Location(parsing: bucket),
                                credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey), http: S3CLITests.http)
        let objects = try await store.contents()
        #expect(objects.count == 1, "\(objects)")

        // What the database holds: the bucket's address, and no key of it.
        let settings: String
        if let postgres {
            settings = try await offPool {
                try postgres.server.query("SELECT name || '=' || convert_from(value, 'UTF8') FROM settings", database: postgres.name)
            }
        } else {
            settings = ["wopi.sqlite", "wopi.sqlite-wal"].compactMap { try? Data(contentsOf: data.appendingPathComponent($0)) }
                .map { String(decoding: $0, as: UTF8.self) }.joined()
        }
        #expect(settings.contains(recordedBucket), "the record names the bucket: \(settings.suffix(2000))")
        #expect(!settings.contains(server.secretAccessKey) && !settings.contains(server.accessKeyID), "a key reached the database")

        let otherFolder = work.appendingPathComponent("other-bodies")
        let otherBucket = try await S3CLITests.makeBucket(on: server)
        let defaultFolder = data.appendingPathComponent("blobs")
        let mismatches: [(arguments: [String], given: String)] = [
            (["files", "add", document.path, "--owner", "alice", "--name", "Second.docx"] + storage, defaultFolder.path),
            (["files", "add", document.path, "--owner", "alice", "--name", "Third.docx", "--blobs", otherFolder.path] + storage, otherFolder.path),
            (["files", "add", document.path, "--owner", "alice", "--name", "Fourth.docx", "--blobs", otherBucket] + storage,
             try S3Location(parsing: otherBucket).description),
            (["users", "add", "bob", "--password", "record-password-2"] + storage, defaultFolder.path),
            (["blobs", "sweep", "--older-than", "0"] + storage, defaultFolder.path),
        ]
        for (arguments, given) in mismatches {
            let refused = try await run(arguments)
            #expect(refused.exitCode == 2, "\(arguments): exit \(refused.exitCode) \(refused.stderr)")
            #expect(refused.stderrLines.count == 1 && refused.stderr.contains("keeps its bodies in \(recordedBucket)")
                    && refused.stderr.contains("not in \(given)"), "\(arguments): \(refused.stderr)")
            #expect(!refused.stderr.contains(server.secretAccessKey))
        }
        // The host refuses the same way, before it listens.
        let port = try LocalPort.free()
        let host = try WopiServer.launch(["--host", "127.0.0.1", "--port", "\(port)"] + storage, environment: environment)
        defer { host.stop() }
        #expect(try await host.waitForExit(timeout: 60) == 2, "\(host.log)")
        #expect(host.log.contains("keeps its bodies in \(recordedBucket)"), "\(host.log)")

        // Nothing changed: no folder made, no body written, no user or file added; the bucket as it was.
        #expect(!FileManager.default.fileExists(atPath: defaultFolder.path), "the default folder was made")
        #expect(!FileManager.default.fileExists(atPath: otherFolder.path), "the other folder was made")
        #expect(try await store.contents() == objects)
        let otherStore = S3BlobStore(location: try S3Location(parsing: otherBucket),
                                     credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey), http: S3CLITests.http)
        #expect(try await otherStore.contents().isEmpty)
        let files = try await run(["files", "list", "--owner", "alice", "--blobs", bucket] + storage)
        #expect(files.exitCode == 0 && files.stdout.contains("Plan.docx") && !files.stdout.contains("Second.docx")
                && !files.stdout.contains("Third.docx") && !files.stdout.contains("Fourth.docx"), "\(files.stdout) \(files.stderr)")
        let users = try await run(["users", "list", "--blobs", bucket] + storage)
        #expect(users.exitCode == 0 && !users.stdout.contains("\"name\":\"bob\"") && users.stdout.contains("\"name\":\"alice\""), "\(users.stdout) \(users.stderr)")
    }

    @Test("a data folder moved whole still opens: the default folder is recorded relative to it")
    func movedDataFolderOpens() async throws {
        let work = S3CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let before = work.appendingPathComponent("before")
        let added = try await WopiProcess.run(["users", "add", "alice", "--password", "record-password-1", "--data", before.path])
        try #require(added.exitCode == 0, "\(added.stderr)")
        let after = work.appendingPathComponent("after")
        try FileManager.default.moveItem(at: before, to: after)
        let listed = try await WopiProcess.run(["users", "list", "--data", after.path])
        #expect(listed.exitCode == 0 && listed.stdout.contains("alice"), "\(listed.stdout) \(listed.stderr)")
        // A folder elsewhere is still another store.
        let refused = try await WopiProcess.run(["users", "list", "--data", after.path, "--blobs", before.appendingPathComponent("blobs").path])
        #expect(refused.exitCode == 2 && refused.stderr.contains("keeps its bodies in \(after.appendingPathComponent("blobs").path)"), "\(refused.stderr)")
    }
}
