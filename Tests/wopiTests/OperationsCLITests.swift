import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Operations on real processes: metrics, health, header limits, version history, lock tools, the
/// audit log, JSON logs, graceful drain and the configuration file — through `wopi serve` over
/// real HTTP and the `wopi` admin commands.
@Suite(.serialized) struct OperationsCLITests {
    static let password = "operator-pw-1234"

    /// A data folder with user `alice` and one document, and a token for it.
    struct Setup {
        let data: URL
        let fileID: String
        let token: String
        let original: Data
        var path: String { "/wopi/files/\(fileID)" }
        var query: String { "access_token=\(token)" }

        func remove() { try? FileManager.default.removeItem(at: data.deletingLastPathComponent()) }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    static func jsonArray(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON array: \(text)")
    }

    static func makeSetup(content: String = "first content\n") async throws -> Setup {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-ops-\(UUID().uuidString)")
        let data = work.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let user = try await WopiProcess.run(["users", "add", "alice", "--password", password, "--data", data.path])
        try #require(user.exitCode == 0, "users add: \(user.stderr)")
        let document = work.appendingPathComponent("Plan.docx")
        let original = Data(content.utf8)
        try original.write(to: document)
        let added = try await WopiProcess.run(["files", "add", document.path, "--owner", "alice", "--data", data.path])
        try #require(added.exitCode == 0, "files add: \(added.stderr)")
        let id = try #require(try json(added.stdout)["id"] as? String)
        let minted = try await WopiProcess.run(["token", "--user", "alice", "--file", id, "--data", data.path])
        try #require(minted.exitCode == 0, "token: \(minted.stderr)")
        let token = try #require(try json(minted.stdout)["access_token"] as? String)
        return Setup(data: data, fileID: id, token: token, original: original)
    }

    static func put(_ server: WopiServer, _ setup: Setup, _ body: Data, lock: String? = nil) async throws -> RawHTTPConnection.Response {
        try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)/contents?\(setup.query)",
                                      ["X-WOPI-Override: PUT"] + (lock.map { ["X-WOPI-Lock: \($0)"] } ?? []), body: body)
    }

    static func lock(_ server: WopiServer, _ setup: Setup, _ override: String, _ lock: String) async throws -> RawHTTPConnection.Response {
        try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)", ["X-WOPI-Override: \(override)", "X-WOPI-Lock: \(lock)"])
    }

    static func checkFileInfo(_ server: WopiServer, _ setup: Setup) async throws -> [String: Any] {
        let response = try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)?\(setup.query)")
        try #require(response.status == 200, "CheckFileInfo: \(response)")
        return try json(response.text)
    }

    /// The value of one sample line of the metrics text, e.g. `wopi_lock_conflicts_total`.
    static func sample(_ metrics: String, _ series: String) -> Double? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    // MARK: Metrics and health

    @Test("after a WOPI round trip /metrics shows the requests by operation and status, the duration histogram, lock conflicts, PutFile bytes and refused tokens; nothing on the WOPI port",
          .timeLimit(.minutes(10)))
    func metricsAfterRoundTrip() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let metricsPort = try WopiServer.freePort()
        let server = try await WopiServer.start(data: setup.data, extraArguments: ["--metrics-port", String(metricsPort)])
        defer { server.stop() }

        #expect(try await Self.checkFileInfo(server, setup)["Size"] as? Int == setup.original.count)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)/contents?\(setup.query)").body == setup.original)
        #expect(try await Self.lock(server, setup, "LOCK", "client-one").status == 200)
        #expect(try await Self.lock(server, setup, "LOCK", "client-two").status == 409, "a second client's lock conflicts")
        let body = Data(repeating: 0x41, count: 12_345)
        #expect(try await Self.put(server, setup, body, lock: "client-one").status == 200)
        #expect(try await Self.put(server, setup, body, lock: "client-two").status == 409, "a save under the wrong lock conflicts")
        let forged = try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)?access_token=\(setup.token.tampered())")
        #expect(forged.status == 401)

        let scrape = try await RawHTTPConnection.request(port: metricsPort, "GET", "/metrics")
        try #require(scrape.status == 200, "GET /metrics: \(scrape)")
        #expect(scrape.header("Content-Type")?.hasPrefix("text/plain") == true)
        let text = scrape.text
        #expect(Self.sample(text, #"wopi_requests_total{operation="CheckFileInfo",status="200"}"#) == 1, "\(text)")
        #expect(Self.sample(text, #"wopi_requests_total{operation="GetFile",status="200"}"#) == 1)
        #expect(Self.sample(text, #"wopi_requests_total{operation="Lock",status="200"}"#) == 1)
        #expect(Self.sample(text, #"wopi_requests_total{operation="Lock",status="409"}"#) == 1)
        #expect(Self.sample(text, #"wopi_requests_total{operation="PutFile",status="200"}"#) == 1)
        #expect(Self.sample(text, #"wopi_requests_total{operation="PutFile",status="409"}"#) == 1)
        #expect(Self.sample(text, #"wopi_requests_total{operation="CheckFileInfo",status="401"}"#) == 1)
        #expect(Self.sample(text, #"wopi_request_duration_seconds_count{operation="PutFile"}"#) == 2)
        #expect(Self.sample(text, #"wopi_request_duration_seconds_bucket{operation="PutFile",le="+Inf"}"#) == 2)
        #expect(Self.sample(text, #"wopi_request_duration_seconds_bucket{operation="PutFile",le="60.0"}"#) == 2,
                "the 60 s bucket holds both PutFiles")
        #expect(Self.sample(text, "wopi_lock_conflicts_total") == 2)
        #expect(Self.sample(text, "wopi_putfile_bytes_total") == Double(body.count))
        #expect(Self.sample(text, #"wopi_tokens_refused_total{reason="bad_signature"}"#) == 1)
        #expect(!text.contains(setup.fileID) && !text.contains(setup.token), "no ids or tokens in label values")

        let onWOPIPort = try await RawHTTPConnection.request(port: server.port, "GET", "/metrics")
        #expect(onWOPIPort.status == 404, "metrics are served on --metrics-port only")
    }

    @Test("no metrics port without --metrics-port; /health/live answers; /health/ready goes 503 naming the blob folder while it is gone, and 200 again",
          .timeLimit(.minutes(10)))
    func health() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "/health/live").status == 200)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "/health/ready").status == 200)

        let blobs = setup.data.appendingPathComponent("blobs")
        let aside = setup.data.appendingPathComponent("blobs-aside")
        try FileManager.default.moveItem(at: blobs, to: aside)
        let down = try await RawHTTPConnection.request(port: server.port, "GET", "/health/ready")
        #expect(down.status == 503, "\(down)")
        #expect(down.text.contains("blob folder"), "the reason names the blob folder: \(down.text)")
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "/health/live").status == 200, "the process still answers")
        try FileManager.default.moveItem(at: aside, to: blobs)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "/health/ready").status == 200)
    }

    // MARK: Header limits

    @Test("a 64 KiB header, or 40 KiB of headers in all, gets 431 and the PutFile it carried changes nothing",
          .timeLimit(.minutes(10)))
    func oversizedHeaders() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }
        let before = try await Self.checkFileInfo(server, setup)

        let big = "X-Padding: " + String(repeating: "a", count: 64 * 1024)
        let single = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)/contents?\(setup.query)",
                                                   ["X-WOPI-Override: PUT", big], body: Data("replaced!".utf8))
        #expect(single.status == 431, "\(single)")
        let many = (0..<10).map { "X-Padding-\($0): " + String(repeating: "b", count: 4 * 1024) }
        let block = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)/contents?\(setup.query)",
                                                  ["X-WOPI-Override: PUT"] + many, body: Data("replaced!".utf8))
        #expect(block.status == 431, "\(block)")
        let fine = (0..<3).map { "X-Padding-\($0): " + String(repeating: "c", count: 4 * 1024) }
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)?\(setup.query)", fine).status == 200,
                "headers within the limits are served")

        let after = try await Self.checkFileInfo(server, setup)
        #expect(after["Version"] as? String == before["Version"] as? String, "the refused PutFile made no version")
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)/contents?\(setup.query)").body == setup.original)
    }

    // MARK: Version history

    @Test("PutFile keeps replaced bodies up to --keep-versions; history lists them newest first; restore is refused while locked and otherwise makes a new version with the old content",
          .timeLimit(.minutes(10)))
    func historyAndRestore() async throws {
        let setup = try await Self.makeSetup(content: "version A\n")
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data, extraArguments: ["--keep-versions", "2"])
        defer { server.stop() }
        let contents = ["version B\n", "version C\n", "version D\n"].map { Data($0.utf8) }
        #expect(try await Self.lock(server, setup, "LOCK", "editor-lock-42").status == 200)
        for content in contents { #expect(try await Self.put(server, setup, content, lock: "editor-lock-42").status == 200) }

        let history = try await WopiProcess.run(["files", "history", setup.fileID, "--data", setup.data.path])
        try #require(history.exitCode == 0, "files history: \(history.stderr)")
        let entries = try Self.jsonArray(history.stdout)
        try #require(entries.count == 3, "the current content and 2 kept versions: \(history.stdout)")
        for entry in entries {
            #expect(Set(entry.keys) == ["version", "size", "modified", "sha256", "user"], "\(entry)")
            #expect(entry["user"] as? String == "alice")
        }
        let versions = entries.compactMap { ($0["version"] as? String).flatMap { Int64($0.dropFirst()) } }
        #expect(versions == versions.sorted(by: >), "newest first: \(versions)")
        let current = try await Self.checkFileInfo(server, setup)
        #expect(entries[0]["version"] as? String == current["Version"] as? String)
        #expect(entries[0]["sha256"] as? String == current["SHA256"] as? String)
        #expect(entries.map { $0["size"] as? Int } == [contents[2].count, contents[1].count, contents[0].count])
        let versionB = try #require(entries[2]["version"] as? String)

        // Locked: refused with the lock's value, nothing changes.
        let refused = try await WopiProcess.run(["files", "restore", setup.fileID, "--version", versionB, "--data", setup.data.path])
        #expect(refused.exitCode == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("editor-lock-42"), "the refusal names the lock: \(refused.stderr)")
        #expect(try await Self.checkFileInfo(server, setup)["Version"] as? String == current["Version"] as? String)
        #expect(try await Self.lock(server, setup, "UNLOCK", "editor-lock-42").status == 200)

        let restored = try await WopiProcess.run(["files", "restore", setup.fileID, "--version", versionB, "--data", setup.data.path])
        try #require(restored.exitCode == 0, "files restore: \(restored.stderr)")
        let result = try Self.json(restored.stdout)
        let after = try await Self.checkFileInfo(server, setup)
        #expect(result["version"] as? String == after["Version"] as? String, "restore printed the new Version")
        #expect(after["Version"] as? String != current["Version"] as? String, "a restore is a new version")
        #expect(after["Size"] as? Int == contents[0].count)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)/contents?\(setup.query)").body == contents[0])
        let again = try Self.jsonArray(try await WopiProcess.run(["files", "history", setup.fileID, "--data", setup.data.path]).stdout)
        #expect(again.first?["sha256"] as? String == entries[2]["sha256"] as? String, "the restored content is current")
        #expect(again.count == 3, "still at most 2 kept versions besides the current one")

        let missing = try await WopiProcess.run(["files", "restore", setup.fileID, "--version", "v999999", "--data", setup.data.path])
        #expect(missing.exitCode == 2 && missing.stderrLines.count == 1, "\(missing.stderr)")
    }

    // MARK: Locks

    @Test("locks list shows unexpired locks; locks break says whose lock it was and lets another client lock", .timeLimit(.minutes(10)))
    func locksListAndBreak() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }
        let empty = try await WopiProcess.run(["locks", "list", "--data", setup.data.path])
        #expect(empty.exitCode == 0, "\(empty.stderr)")
        #expect(try Self.jsonArray(empty.stdout).isEmpty, "\(empty.stdout)")

        #expect(try await Self.lock(server, setup, "LOCK", "crashed-client").status == 200)
        let listed = try Self.jsonArray(try await WopiProcess.run(["locks", "list", "--data", setup.data.path]).stdout)
        try #require(listed.count == 1)
        #expect(listed[0]["file"] as? String == setup.fileID)
        #expect(listed[0]["name"] as? String == "Plan.docx")
        #expect(listed[0]["lock"] as? String == "crashed-client")
        #expect((listed[0]["expires"] as? String)?.hasSuffix("Z") == true)
        #expect(Set(listed[0].keys) == ["file", "name", "lock", "expires"])

        #expect(try await Self.lock(server, setup, "LOCK", "new-client").status == 409)
        let broken = try await WopiProcess.run(["locks", "break", setup.fileID, "--data", setup.data.path])
        try #require(broken.exitCode == 0, "locks break: \(broken.stderr)")
        #expect(try Self.json(broken.stdout)["lock"] as? String == "crashed-client", "says whose lock it was: \(broken.stdout)")
        #expect(try await Self.lock(server, setup, "LOCK", "new-client").status == 200, "another client can lock after the break")
        let relisted = try Self.jsonArray(try await WopiProcess.run(["locks", "list", "--data", setup.data.path]).stdout)
        #expect(relisted.first?["lock"] as? String == "new-client")

        #expect(try await Self.lock(server, setup, "UNLOCK", "new-client").status == 200)
        let nothing = try await WopiProcess.run(["locks", "break", setup.fileID, "--data", setup.data.path])
        #expect(nothing.exitCode == 1 && nothing.stderr.contains("not locked"), "\(nothing.stderr)")
        let bad = try await WopiProcess.run(["locks", "break", "not-an-id!", "--data", setup.data.path])
        #expect(bad.exitCode == 2 && bad.stderrLines.count == 1, "\(bad.stderr)")
    }

    // MARK: Audit log and JSON logs

    @Test("the audit log has one JSON line per change and refusal, with time, user, file and request id, and no secret; --log-format json logs JSON lines",
          .timeLimit(.minutes(10)))
    func auditLog() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let audit = setup.data.deletingLastPathComponent().appendingPathComponent("audit.jsonl")
        let server = try await WopiServer.start(data: setup.data, extraArguments: ["--audit-log", audit.path, "--log-format", "json"])
        defer { server.stop() }

        #expect(try await Self.lock(server, setup, "LOCK", "audit-lock").status == 200)
        #expect(try await Self.lock(server, setup, "LOCK", "other-lock").status == 409)
        #expect(try await Self.put(server, setup, Data("saved body".utf8), lock: "audit-lock").status == 200)
        #expect(try await Self.lock(server, setup, "UNLOCK", "audit-lock").status == 200)
        let rename = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)",
                                                   ["X-WOPI-Override: RENAME_FILE", "X-WOPI-RequestedName: Renamed"])
        #expect(rename.status == 200, "\(rename)")
        let share = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)",
                                                  ["X-WOPI-Override: GET_SHARE_URL", "X-WOPI-UrlType: ReadOnly"])
        #expect(share.status == 200, "\(share)")
        let shareURL = try #require(try Self.json(share.text)["ShareUrl"] as? String)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)?access_token=nonsense").status == 401)
        #expect(try await Self.lock(server, setup, "LOCK", "left-behind").status == 200)
        let broken = try await WopiProcess.run(["locks", "break", setup.fileID, "--data", setup.data.path, "--audit-log", audit.path])
        #expect(broken.exitCode == 0, "\(broken.stderr)")
        let history = try Self.jsonArray(try await WopiProcess.run(["files", "history", setup.fileID, "--data", setup.data.path]).stdout)
        let first = try #require(history.last?["version"] as? String)
        let restored = try await WopiProcess.run(["files", "restore", setup.fileID, "--version", first, "--data", setup.data.path, "--audit-log", audit.path])
        #expect(restored.exitCode == 0, "\(restored.stderr)")
        let deleted = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)", ["X-WOPI-Override: DELETE"])
        #expect(deleted.status == 200, "\(deleted)")

        let text = try String(contentsOf: audit, encoding: .utf8)
        let lines = try text.split(separator: "\n").map { try Self.json(String($0)) }
        let events = lines.compactMap { $0["event"] as? String }
        for expected in ["lock.taken", "lock.refused", "file.saved", "lock.released", "file.renamed", "sharelink.created", "token.refused",
                         "lock.broken", "file.restored", "file.deleted"] {
            #expect(events.contains(expected), "missing \(expected) in \(events)")
        }
        for line in lines {
            #expect(line["time"] is String, "\(line)")
            for key in ["user", "file", "request_id"] { #expect(line.keys.contains(key), "\(key) missing in \(line)") }
        }
        let saved = try #require(lines.first { $0["event"] as? String == "file.saved" })
        #expect(saved["user"] as? String == "alice")
        #expect(saved["file"] as? String == setup.fileID)
        #expect((saved["request_id"] as? String)?.isEmpty == false)
        #expect(saved["old_version"] is String && saved["new_version"] is String && saved["old_version"] as? String != saved["new_version"] as? String)
        #expect(lines.first { $0["event"] as? String == "lock.broken" }?["lock"] as? String == "left-behind")
        let shareToken = try #require(shareURL.split(separator: "/").last.map(String.init))
        #expect(!text.contains(setup.token) && !text.contains(shareToken) && !text.contains(Self.password), "no token or password in the audit log")

        let logLines = server.log.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(!logLines.isEmpty, "JSON log lines: \(server.log)")
        for line in logLines {
            let object = try Self.json(String(line))
            #expect(object["level"] is String && object["message"] is String, "\(line)")
        }
        #expect(!server.log.contains(setup.token), "no token in the log")
    }

    // MARK: Graceful stop

    @Test("SIGTERM during a PutFile: the upload completes and is recorded, then the server exits 0", .timeLimit(.minutes(10)))
    func drainOnSIGTERM() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data, extraArguments: ["--drain-timeout", "60"])
        defer { server.stop() }
        let body = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        #expect(try await Self.lock(server, setup, "LOCK", "drain-lock").status == 200)
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.write(RawHTTPConnection.head("POST", "\(setup.path)/contents?\(setup.query)", ["X-WOPI-Override: PUT", "X-WOPI-Lock: drain-lock"],
                                                contentLength: body.count))
        try await connection.write(body.prefix(body.count / 2))
        // Wait until the host is writing the upload, so the signal lands mid-request.
        let staging = setup.data.appendingPathComponent("blobs/.staging")
        var waited = 0
        while !server.isWriting(under: staging), waited < 600 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        try #require(server.isWriting(under: staging), "the upload never started")
        #expect(server.signal(SIGTERM))
        // Stopping means no new connections, while the one in flight is still served.
        var polls = 0
        while WopiServer.accepts(port: server.port), polls < 200 {
            try await Task.sleep(for: .milliseconds(50))
            polls += 1
        }
        #expect(!WopiServer.accepts(port: server.port), "the listener is closed after SIGTERM")
        try await connection.write(body.suffix(from: body.count / 2))
        let response = try #require(try await connection.readResponse(), "no answer to the PutFile in flight")
        #expect(response.status == 200, "\(response)")
        #expect(try await server.waitForExit() == 0, "exit status 0 after draining")

        let history = try Self.jsonArray(try await WopiProcess.run(["files", "history", setup.fileID, "--data", setup.data.path]).stdout)
        #expect(history.first?["size"] as? Int == body.count, "the PutFile in flight was recorded: \(history)")
        #expect(history.first?["version"] as? String == response.header("X-WOPI-ItemVersion"))
    }

    @Test("SIGTERM with an upload that never finishes: after --drain-timeout the server exits 0 and the file is unchanged",
          .timeLimit(.minutes(10)))
    func drainTimeout() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data, extraArguments: ["--drain-timeout", "1"])
        defer { server.stop() }
        let before = try await Self.checkFileInfo(server, setup)
        #expect(try await Self.lock(server, setup, "LOCK", "stalled-lock").status == 200)
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.write(RawHTTPConnection.head("POST", "\(setup.path)/contents?\(setup.query)", ["X-WOPI-Override: PUT", "X-WOPI-Lock: stalled-lock"],
                                                contentLength: 1 << 20))
        try await connection.write(Data(count: 1 << 19))
        var polls = 0
        while !server.isWriting(under: setup.data.appendingPathComponent("blobs/.staging")), polls < 600 {
            try await Task.sleep(for: .milliseconds(50))
            polls += 1
        }
        #expect(server.signal(SIGTERM))
        #expect(try await server.waitForExit(timeout: 60) == 0, "exit status 0 once the drain timeout has passed")
        let history = try Self.jsonArray(try await WopiProcess.run(["files", "history", setup.fileID, "--data", setup.data.path]).stdout)
        #expect(history.count == 1 && history.first?["version"] as? String == before["Version"] as? String, "the cut-off upload changed nothing")
    }

    // MARK: Configuration

    @Test("serve options come from flags, then WOPI_* environment variables, then the --config file", .timeLimit(.minutes(10)))
    func precedence() async throws {
        let setup = try await Self.makeSetup()
        defer { setup.remove() }
        let filePort = try WopiServer.freePort(), envPort = try WopiServer.freePort(), flagPort = try WopiServer.freePort()
        let config = setup.data.deletingLastPathComponent().appendingPathComponent("serve.json")
        try Data("""
            {"port": \(filePort), "data": "\(setup.data.path)", "max-file-size": "1K", "keep-versions": 0}
            """.utf8).write(to: config)

        let fromFile = try WopiServer.launch(["--config", config.path])
        defer { fromFile.stop() }
        try await fromFile.waitUntilListening(port: filePort)
        #expect(try await RawHTTPConnection.request(port: filePort, "POST", "\(setup.path)?\(setup.query)",
                                              ["X-WOPI-Override: LOCK", "X-WOPI-Lock: size-check"]).status == 200)
        let big = try await RawHTTPConnection.request(port: filePort, "POST", "\(setup.path)/contents?\(setup.query)",
                                                ["X-WOPI-Override: PUT", "X-WOPI-Lock: size-check"], body: Data(count: 2048))
        #expect(big.status == 413, "max-file-size 1K from the file applies: \(big)")
        #expect(try await offPool { fromFile.stop() } == 0)

        let fromEnvironment = try WopiServer.launch(["--config", config.path], environment: ["WOPI_PORT": String(envPort)])
        defer { fromEnvironment.stop() }
        try await fromEnvironment.waitUntilListening(port: envPort)
        #expect(!WopiServer.accepts(port: filePort), "the environment wins over the file")
        #expect(try await offPool { fromEnvironment.stop() } == 0)

        let fromFlag = try WopiServer.launch(["--config", config.path, "--port", String(flagPort)], environment: ["WOPI_PORT": String(envPort)])
        defer { fromFlag.stop() }
        try await fromFlag.waitUntilListening(port: flagPort)
        #expect(!WopiServer.accepts(port: envPort), "the flag wins over the environment")
        #expect(try await offPool { fromFlag.stop() } == 0)
    }

    @Test("config check accepts a good file and names unknown keys and bad values with exit 2; serve refuses such a file", .timeLimit(.minutes(10)))
    func configCheck() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.json")
        try Data(#"{"port": 8443, "host": "127.0.0.1", "max-file-size": "2G", "keep-versions": 5, "metrics-port": 9090, "log-format": "json", "ios-url-scheme": ["a-app", "b-app"]}"#.utf8).write(to: good)
        let ok = try await WopiProcess.run(["config", "check", "--config", good.path])
        #expect(ok.exitCode == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("ok: 7 settings"), "\(ok.stdout)")

        let bad = folder.appendingPathComponent("bad.json")
        try Data(#"{"prot": 8080, "port": 70000, "log-format": "xml"}"#.utf8).write(to: bad)
        let refused = try await WopiProcess.run(["config", "check", "--config", bad.path])
        #expect(refused.exitCode == 2)
        #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
        for word in ["prot", "port", "log-format"] { #expect(refused.stderr.contains("'\(word)'"), "names \(word): \(refused.stderr)") }

        let serve = try await WopiProcess.run(["serve", "--config", bad.path, "--data", folder.appendingPathComponent("data").path])
        #expect(serve.exitCode == 2 && serve.stderrLines.count == 1, "\(serve.stderr)")
        let missing = try await WopiProcess.run(["config", "check", "--config", folder.appendingPathComponent("nope.json").path])
        #expect(missing.exitCode == 2, "\(missing.stderr)")
    }
}
