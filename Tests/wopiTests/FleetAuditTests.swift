import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// One audit trail and one sign-in throttle for a fleet: two `wopi serve` processes on one real
/// PostgreSQL database, driven over HTTP and through the CLI, read back with `wopi audit list`.
@Suite("Two hosts on PostgreSQL: one audit trail, one throttle", .serialized)
struct FleetAuditTests {
    static let password = "fleet-password-1"
    static let clientID = "office-fleet"
    static let clientSecret = "office-fleet-secret-\(UUID().uuidString)"

    /// Two hosts on one database and one body folder, each reached directly.
    final class Fleet: @unchecked Sendable {
        let work: URL
        let database: String
        let blobs: URL
        let hosts: [WopiServer]

        init() async throws {
            work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-fleet-\(UUID().uuidString)", isDirectory: true)
            blobs = work.appendingPathComponent("shared-blobs")
            try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
            database = try await offPool { try PostgresTestServer.shared().makeDatabase() }
            var started: [WopiServer] = []
            do {
                for index in 0..<2 {
                    started.append(try await WopiServer.start(data: work.appendingPathComponent("host\(index)"), extraArguments: [
                        "--database", database, "--blobs", blobs.path,
                        "--office-client-id", FleetAuditTests.clientID, "--office-client-secret", FleetAuditTests.clientSecret,
                    ]))
                }
            } catch {
                started.forEach { $0.stop() }
                try? FileManager.default.removeItem(at: work)
                throw error
            }
            hosts = started
        }

        var storageArguments: [String] { ["--database", database, "--blobs", blobs.path, "--data", work.appendingPathComponent("cli").path] }

        /// `wopi ARGUMENTS` on this fleet's storage, expecting one JSON object.
        func cli(_ arguments: [String]) async throws -> [String: Any] {
            let result = try await WopiProcess.run(arguments + storageArguments, timeout: 60)
            #expect(result.exitCode == 0, "wopi \(arguments.joined(separator: " ")) failed: \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "not JSON: \(result.stdout)")
        }

        /// `wopi audit list ARGUMENTS`, one object per line.
        func auditList(_ arguments: [String] = []) async throws -> [[String: Any]] {
            let result = try await WopiProcess.run(["audit", "list"] + arguments + storageArguments, timeout: 60)
            #expect(result.exitCode == 0, "wopi audit list failed: \(result.stderr)")
            return try result.stdout.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            }
        }

        /// Polls `wopi audit list ARGUMENTS` until `done` holds for its events (hosts write their trail off the
        /// request's path), with a deadline.
        func auditList(_ arguments: [String] = [], until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
            let deadline = Date().addingTimeInterval(20)
            var events = try await auditList(arguments)
            while !done(events), Date() < deadline {
                try await Task.sleep(for: .milliseconds(200))
                events = try await auditList(arguments)
            }
            return events
        }

        func stop() {
            hosts.forEach { $0.stop() }
            try? FileManager.default.removeItem(at: work)
        }
    }

    /// A request with a form body; returns the status, headers and body text.
    static func post(_ url: String, form: [(String, String)], headers: [(String, String)] = []) async throws -> (status: Int, headers: [String: String], body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        return try await send(request)
    }

    static func send(_ request: HTTPClientRequest) async throws -> (status: Int, headers: [String: String], body: String) {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return (Int(response.status.code), headers, String(buffer: body))
    }

    /// A web front sign-in as a browser makes it: the form's signed CSRF token, repeated in its cookie.
    static func webSignIn(_ host: WopiServer, username: String, password: String) async throws -> (status: Int, headers: [String: String], body: String) {
        let form = try await send(HTTPClientRequest(url: "\(host.baseURL)/"))
        let field = try #require(form.body.range(of: "name=\"csrf\" value=\""), "no sign-in form: \(form.status)")
        let csrf = String(form.body[field.upperBound...].prefix { $0 != "\"" })
        return try await post("\(host.baseURL)/signin", form: [("csrf", csrf), ("username", username), ("password", password)],
                              headers: [("Cookie", "wopi_web_csrf=\(csrf)")])
    }

    /// A token request for an authorization code that does not exist: a refused grant.
    static func bogusGrant(_ host: WopiServer, code: String) async throws -> (status: Int, headers: [String: String], body: String) {
        try await post("\(host.baseURL)/oauth2/token", form: [("grant_type", "authorization_code"), ("code", code),
                                                              ("client_id", clientID), ("client_secret", clientSecret)])
    }

    @Test("wrong passwords and refused grants spread over two hosts reach one limit, and both hosts then refuse", .timeLimit(.minutes(5)))
    func throttleHoldsAcrossHosts() async throws {
        let fleet = try await Fleet()
        defer { fleet.stop() }
        _ = try await fleet.cli(["users", "add", "mallory-target", "--password", Self.password])
        let limit = 5 // AuthorizationPolicy's default, which `wopi serve` uses

        // Web front and OAuth sign-in pages: failures alternate between the hosts.
        for attempt in 0..<limit {
            let answer = try await Self.webSignIn(fleet.hosts[attempt % 2], username: "mallory-target", password: "wrong-\(attempt)")
            #expect(answer.status == 401, "attempt \(attempt) on host \(attempt % 2): \(answer.status)")
        }
        for (index, host) in fleet.hosts.enumerated() {
            // Even the right password is refused until the oldest failure ages out.
            let answer = try await Self.webSignIn(host, username: "mallory-target", password: Self.password)
            #expect(answer.status == 429, "host \(index) must throttle after \(limit) failures counted on both: \(answer.status)")
            #expect(Int(answer.headers["retry-after"] ?? "") ?? 0 > 0, "host \(index) says when to retry")
        }
        // Another name is not throttled: the limit is per name (and address), not per host.
        let other = try await Self.webSignIn(fleet.hosts[1], username: "someone-else", password: "wrong")
        #expect(other.status == 401)

        // Token endpoint: refused grants alternate between the hosts.
        for attempt in 0..<limit {
            let answer = try await Self.bogusGrant(fleet.hosts[attempt % 2], code: "no-such-code-\(attempt)")
            #expect(answer.status == 400 && answer.body.contains("invalid_grant"), "grant \(attempt): \(answer.status) \(answer.body)")
        }
        for (index, host) in fleet.hosts.enumerated() {
            let answer = try await Self.bogusGrant(host, code: "no-such-code-after")
            #expect(answer.status == 429 && answer.body.contains("slow_down"), "host \(index): \(answer.status) \(answer.body)")
            #expect(Int(answer.headers["retry-after"] ?? "") ?? 0 > 0)
        }

        // The trail has every refusal, from both hosts.
        let refusals = try await fleet.auditList(["--event", "signin.failed", "--user", "mallory-target"]) { $0.count >= limit + 2 }
        #expect(refusals.filter { $0["reason"] as? String == "wrong_credentials" }.count == limit)
        #expect(refusals.filter { $0["reason"] as? String == "throttled" }.count == 2)
        let grants = try await fleet.auditList(["--event", "grant.refused"]) { $0.count >= limit + 2 }
        #expect(grants.filter { $0["reason"] as? String == "invalid_grant" }.count == limit)
        #expect(grants.filter { $0["reason"] as? String == "throttled" }.count == 2)
        #expect(grants.allSatisfy { $0["client"] as? String == Self.clientID })
    }

    @Test("a share added with the CLI, a save through one host and a lock broken with the CLI all appear in wopi audit list",
          .timeLimit(.minutes(5)))
    func oneTrailForTheFleet() async throws {
        let fleet = try await Fleet()
        defer { fleet.stop() }
        let started = Date()
        _ = try await fleet.cli(["users", "add", "alice", "--password", Self.password])
        _ = try await fleet.cli(["users", "add", "bob", "--password", Self.password])
        let document = fleet.work.appendingPathComponent("Plan.docx")
        try Data("the plan, first draft\n".utf8).write(to: document)
        let fileID = try #require(try await fleet.cli(["files", "add", document.path, "--owner", "alice"])["id"] as? String)
        _ = try await fleet.cli(["shares", "add", fileID, "--with", "bob", "--role", "editor"])
        let token = try #require(try await fleet.cli(["token", "--user", "alice", "--file", fileID])["access_token"] as? String)

        // Lock and save through host 1.
        let source = "\(fleet.hosts[1].baseURL)/wopi/files/\(fileID)"
        var lock = HTTPClientRequest(url: "\(source)?access_token=\(token)")
        lock.method = .POST
        lock.headers.add(name: "X-WOPI-Override", value: "LOCK")
        lock.headers.add(name: "X-WOPI-Lock", value: "fleet-lock-1")
        #expect(try await Self.send(lock).status == 200)
        var save = HTTPClientRequest(url: "\(source)/contents?access_token=\(token)")
        save.method = .POST
        save.headers.add(name: "X-WOPI-Override", value: "PUT")
        save.headers.add(name: "X-WOPI-Lock", value: "fleet-lock-1")
        save.body = .bytes(ByteBuffer(string: "the plan, second draft\n"))
        #expect(try await Self.send(save).status == 200)
        // The operator breaks the lock host 1 took.
        let broken = try await fleet.cli(["locks", "break", fileID])
        #expect(broken["lock"] as? String == "fleet-lock-1")

        let expected: Set<String> = ["file.added", "share.added", "token.issued", "lock.taken", "file.saved", "lock.broken"]
        let aboutFile = try await fleet.auditList(["--file", fileID]) { Set($0.compactMap { $0["event"] as? String }).isSuperset(of: expected) }
        let kinds = aboutFile.compactMap { $0["event"] as? String }
        #expect(Set(kinds).isSuperset(of: expected), "events about the file: \(kinds)")
        #expect(aboutFile.allSatisfy { $0["file"] as? String == fileID })
        #expect(kinds.firstIndex(of: "file.saved")! < kinds.firstIndex(of: "lock.broken")!, "oldest first: \(kinds)")

        let saves = try await fleet.auditList(["--event", "file.saved"])
        #expect(saves.count == 1)
        #expect(saves.first?["user"] as? String == "alice" && saves.first?["request_id"] is String, "a host's event has its request: \(saves)")
        let breaks = try await fleet.auditList(["--event", "lock.broken", "--file", fileID])
        #expect(breaks.count == 1 && breaks.first?["via"] as? String == "cli" && breaks.first?["request_id"] is NSNull)
        let shares = try await fleet.auditList(["--user", "BOB"])
        #expect(shares.compactMap { $0["event"] as? String } == ["user.added", "share.added"], "bob's events, name case-insensitive: \(shares)")
        #expect(shares.last?["role"] as? String == "editor")
        let alices = try await fleet.auditList(["--user", "alice", "--event", "lock.taken"])
        #expect(alices.count == 1 && alices.first?["lock"] as? String == "fleet-lock-1")

        // --since: an age and an ISO 8601 time; a time after everything lists nothing.
        #expect(try await fleet.auditList(["--since", "1h", "--file", fileID]).count == aboutFile.count)
        let isoStart = ISO8601DateFormatter().string(from: started.addingTimeInterval(-1))
        #expect(try await fleet.auditList(["--since", isoStart, "--file", fileID]).count == aboutFile.count)
        #expect(try await fleet.auditList(["--since", "2999-01-01"]).isEmpty)

        // Bad filters: exit 2, one line naming the option, nothing on stdout.
        for bad in [["--since", "yesterday"], ["--since", "-3h"], ["--event", "file.exploded"], ["--file", "not an id"]] {
            let run = try await WopiProcess.run(["audit", "list"] + bad + fleet.storageArguments)
            #expect(run.exitCode == 2, "\(bad): \(run.exitCode)")
            #expect(run.stderrLines.count == 1 && run.stderrLines.first?.contains(bad[0]) == true, "\(bad): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("--audit-days outside 1…36500 is refused with one line, before anything starts")
    func auditDaysAreChecked() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-audit-days-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        for days in ["0", "-1", "36501", "ninety"] {
            let run = try await WopiProcess.run(["serve", "--audit-days", days, "--port", "0", "--data", data.path], timeout: 30)
            #expect(run.exitCode == 2, "--audit-days \(days): \(run.exitCode)")
            #expect(run.stderrLines.count == 1 && run.stderrLines.first?.contains("audit-days") == true, "\(days): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("wopi.sqlite").path), "nothing was created")
    }
}
