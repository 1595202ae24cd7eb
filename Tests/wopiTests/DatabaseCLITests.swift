import Foundation
import TestSupport
import Testing

/// `--database` and `WOPI_DATABASE_URL` through the real binary: the management commands on PostgreSQL,
/// and every bad or unreachable URL refused with exit 2 and one line that never shows the password.
@Suite("wopi --database", .serialized)
struct DatabaseCLITests {
    @Test("users, files and token work on PostgreSQL, from --database or WOPI_DATABASE_URL, with a shared --blobs folder")
    func managementCommandsOnPostgres() async throws {
        let server = try await offPool { try PostgresTestServer.shared() }
        let database = try await offPool { try server.makeDatabase() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-db-cli-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let blobs = work.appendingPathComponent("bodies")
        let data = work.appendingPathComponent("data")

        let added = try await WopiProcess.run(["users", "add", "hana", "--password", "hana-password-1", "--database", database, "--data", data.path, "--blobs", blobs.path])
        #expect(added.exitCode == 0, "users add: \(added.stderr)")
        // The environment variable names the same database.
        let environment = ProcessInfo.processInfo.environment.merging([DataOptionsName.variable: database]) { $1 }
        let listed = try await WopiProcess.run(["users", "list", "--data", data.path, "--blobs", blobs.path], environment: environment)
        #expect(listed.exitCode == 0 && listed.stdout.contains("\"name\":\"hana\""), "users list via WOPI_DATABASE_URL: \(listed.stdout) \(listed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("wopi.sqlite").path), "no SQLite database is made beside PostgreSQL")

        let document = work.appendingPathComponent("Notes.docx")
        try Data("notes".utf8).write(to: document)
        let file = try await WopiProcess.run(["files", "add", document.path, "--owner", "hana", "--database", database, "--blobs", blobs.path, "--data", data.path])
        #expect(file.exitCode == 0, "files add: \(file.stderr)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(file.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let stored = FileManager.default.enumerator(atPath: blobs.path)?.compactMap { $0 as? String }.filter { !$0.hasPrefix(".") && $0.contains("/") } ?? []
        #expect(stored.count == 1, "the body went to --blobs: \(stored)")

        let token = try await WopiProcess.run(["token", "--user", "hana", "--file", id, "--data", data.path, "--blobs", blobs.path], environment: environment)
        #expect(token.exitCode == 0 && token.stdout.contains("access_token"), "token: \(token.stderr)")
        // A command that worked says nothing else: the database driver's routine notices stay out of its output.
        for (name, run) in [("users add", added), ("users list", listed), ("files add", file), ("token", token)] {
            #expect(run.stderr.isEmpty, "\(name) wrote to stderr: \(run.stderr)")
        }
        // The SQLite store in the same --data knows nothing of it: the database really is PostgreSQL.
        let elsewhere = try await WopiProcess.run(["token", "--user", "hana", "--file", id, "--data", data.path])
        #expect(elsewhere.exitCode == 2 && elsewhere.stderr.contains("no user named 'hana'"))

        // Sharing on the same database: a share, the shared user's token with their role, the listing, removal.
        #expect(try await WopiProcess.run(["users", "add", "ike", "--password", "ike-password-1", "--database", database, "--data", data.path, "--blobs", blobs.path]).exitCode == 0)
        let shared = try await WopiProcess.run(["shares", "add", id, "--with", "ike", "--role", "editor", "--database", database, "--data", data.path, "--blobs", blobs.path])
        #expect(shared.exitCode == 0 && shared.stdout.contains("\"role\":\"editor\""), "shares add: \(shared.stderr)")
        let ikeToken = try await WopiProcess.run(["token", "--user", "ike", "--file", id, "--data", data.path, "--blobs", blobs.path], environment: environment)
        #expect(ikeToken.exitCode == 0 && ikeToken.stdout.contains("\"role\":\"editor\""), "token: \(ikeToken.stderr)")
        let shares = try await WopiProcess.run(["shares", "list", "--user", "ike", "--database", database, "--data", data.path, "--blobs", blobs.path])
        #expect(shares.stdout.contains("\"owner\":\"hana\"") && shares.stdout.contains("\"user\":\"ike\""), "\(shares.stdout) \(shares.stderr)")
        #expect(try await WopiProcess.run(["shares", "remove", id, "--with", "ike", "--database", database, "--data", data.path, "--blobs", blobs.path]).exitCode == 0)
        let refused = try await WopiProcess.run(["token", "--user", "ike", "--file", id, "--database", database, "--data", data.path, "--blobs", blobs.path])
        #expect(refused.exitCode == 2 && refused.stderr.contains("may not open"), "\(refused.stderr)")
    }

    @Test("a bad or unreachable database URL: exit 2, one line naming the problem, never the password")
    func badDatabaseURLs() async throws {
        let port = try LocalPort.free() // nothing listens there
        let cases: [(arguments: [String], environment: String?, mentions: String)] = [
            (["users", "list", "--database", "mysql://u:hunter2secret@127.0.0.1/db"], nil, "scheme 'mysql'"),
            (["users", "list", "--database", "postgres://127.0.0.1/db"], nil, "names no user"),
            (["users", "list", "--database", "postgres://u:hunter2secret@127.0.0.1:\(port)"], nil, "names no database"),
            (["users", "list", "--database", "postgres://u:hunter2secret@127.0.0.1:\(port)/db?sslmode=sometimes"], nil, "sslmode"),
            (["users", "list", "--database", "postgres://u:hunter2secret@127.0.0.1:\(port)/db"], nil, "cannot connect to the database at 127.0.0.1:\(port)"),
            (["token", "--user", "a", "--file", "abc", "--database", "postgres://u:hunter2secret@127.0.0.1:\(port)/db"], nil, "cannot connect"),
            (["serve", "--port", "0"], "postgres://u:hunter2secret@127.0.0.1:\(port)/db", "cannot connect to the database"),
            (["serve", "--port", "0"], "not a url at all", "WOPI_DATABASE_URL"),
        ]
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-bad-db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        for (arguments, variable, mentions) in cases {
            var environment = ProcessInfo.processInfo.environment
            environment[DataOptionsName.variable] = variable
            let run = try await WopiProcess.run(arguments + ["--data", data.path], environment: environment, timeout: 60)
            #expect(run.exitCode == 2, "\(arguments): exit \(run.exitCode), stderr \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(mentions), "\(arguments): stderr \(run.stderr)")
            #expect(!run.stderr.contains("hunter2secret") && !run.stdout.contains("hunter2secret"), "the password leaked: \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("wopi.sqlite").path), "nothing falls back to SQLite")
    }

    @Test("a database migrated by a newer wopi is refused with a message that says so")
    func newerSchemaIsRefused() async throws {
        let server = try await offPool { try PostgresTestServer.shared() }
        let database = try await offPool { try server.makeDatabase() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-newer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let first = try await WopiProcess.run(["users", "add", "ivan", "--password", "ivan-password-1", "--database", database, "--data", data.path])
        #expect(first.exitCode == 0, "users add: \(first.stderr)")
        try await offPool {
            try server.execute("INSERT INTO wopikit_schema_migrations (version, name) VALUES (1000, 'from a newer wopi')",
                               database: String(database.split(separator: "/").last ?? ""))
        }
        for arguments in [["users", "list"], ["serve", "--port", "0"]] {
            let run = try await WopiProcess.run(arguments + ["--database", database, "--data", data.path], timeout: 60)
            #expect(run.exitCode == 1, "\(arguments): exit \(run.exitCode)")
            #expect(run.stderr.contains("newer than this wopi binary supports"), "\(arguments): \(run.stderr)")
        }
    }
}

/// The variable `wopi` reads the database URL from (kept here so a rename shows up as a failing test).
enum DataOptionsName {
    static let variable = "WOPI_DATABASE_URL"
}
