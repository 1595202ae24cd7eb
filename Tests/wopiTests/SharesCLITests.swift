import Foundation
import Testing

/// `wopi shares add|list|remove` and `wopi token` for shared users, through the real binary, with a running
/// `wopi serve` on the same data: the role a share gives is what the host enforces, at once.
@Suite("wopi shares")
struct SharesCLITests {
    func run(_ arguments: [String], _ setup: OperationsCLITests.Setup) async throws -> WopiProcess.Result {
        try await WopiProcess.run(arguments + ["--data", setup.data.path])
    }

    func expectInvalid(_ result: WopiProcess.Result, naming fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.exitCode == 2, "exit \(result.exitCode): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderrLines.count == 1 && result.stderr.contains(fragment), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test("Shares are added, listed and removed; bad input exits 2 and changes nothing", .timeLimit(.minutes(5)))
    func addListRemove() async throws {
        let setup = try await OperationsCLITests.makeSetup()
        defer { setup.remove() }
        for name in ["bob", "carol"] {
            let added = try await run(["users", "add", name, "--password", OperationsCLITests.password], setup)
            try #require(added.exitCode == 0, "users add: \(added.stderr)")
        }
        let shared = try await run(["shares", "add", setup.fileID, "--with", "bob", "--role", "viewer"], setup)
        #expect(shared.exitCode == 0, "\(shared.stderr)")
        let share = try OperationsCLITests.json(shared.stdout)
        #expect(share["item"] as? String == setup.fileID && share["kind"] as? String == "file" && share["name"] as? String == "Plan.docx")
        #expect(share["owner"] as? String == "alice" && share["user"] as? String == "bob" && share["role"] as? String == "viewer")
        #expect((share["shared"] as? String)?.hasSuffix("Z") == true)

        // Bad input: one line naming the problem, exit 2, nothing changed.
        expectInvalid(try await run(["shares", "add", setup.fileID, "--with", "carol", "--role", "owner"], setup), naming: "--role")
        expectInvalid(try await run(["shares", "add", setup.fileID, "--with", "nobody", "--role", "viewer"], setup), naming: "nobody")
        expectInvalid(try await run(["shares", "add", "0123456789abcdef0123456789abcdef", "--with", "carol", "--role", "viewer"], setup), naming: "0123456789abcdef")
        expectInvalid(try await run(["shares", "add", "../etc", "--with", "carol", "--role", "viewer"], setup), naming: "../etc")
        expectInvalid(try await run(["shares", "add", setup.fileID, "--with", "alice", "--role", "editor"], setup), naming: "alice")
        expectInvalid(try await run(["shares", "remove", setup.fileID, "--with", "carol"], setup), naming: "carol")
        expectInvalid(try await run(["shares", "list", "--user", "nobody"], setup), naming: "nobody")

        let all = try await run(["shares", "list"], setup)
        #expect(all.exitCode == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1 && rows.first?["user"] as? String == "bob" && rows.first?["role"] as? String == "viewer")
        let forCarol = try await run(["shares", "list", "--user", "carol"], setup)
        #expect(forCarol.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        // Sharing again changes the role.
        #expect(try OperationsCLITests.json(try await run(["shares", "add", setup.fileID, "--with", "bob", "--role", "editor"], setup).stdout)["role"] as? String == "editor")
        let removed = try await run(["shares", "remove", setup.fileID, "--with", "bob"], setup)
        #expect(removed.exitCode == 0)
        #expect(try OperationsCLITests.json(removed.stdout)["role"] as? String == "editor")
        #expect(try await run(["shares", "list"], setup).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("wopi token mints for a shared user with their role; the host enforces it, and a removal takes effect at once",
          .timeLimit(.minutes(10)))
    func tokensAndSimulationFollowTheRole() async throws {
        let setup = try await OperationsCLITests.makeSetup()
        defer { setup.remove() }
        let bob = try await run(["users", "add", "bob", "--password", OperationsCLITests.password], setup)
        try #require(bob.exitCode == 0)
        let bobID = try #require(try OperationsCLITests.json(bob.stdout)["id"] as? String)
        expectInvalid(try await run(["token", "--user", "bob", "--file", setup.fileID], setup), naming: "may not open")
        try #require(try await run(["shares", "add", setup.fileID, "--with", "bob", "--role", "viewer"], setup).exitCode == 0)
        let minted = try await run(["token", "--user", "bob", "--file", setup.fileID], setup)
        #expect(minted.exitCode == 0, "\(minted.stderr)")
        let token = try #require(try OperationsCLITests.json(minted.stdout)["access_token"] as? String)
        #expect(try OperationsCLITests.json(minted.stdout)["role"] as? String == "viewer")
        #expect(try OperationsCLITests.json(try await run(["token", "--user", "alice", "--file", setup.fileID], setup).stdout)["role"] as? String == "owner")

        let server = try await WopiServer.start(data: setup.data)
        defer { _ = server.stop() }
        let wopiSrc = "\(server.baseURL)/wopi/files/\(setup.fileID)"
        // A viewer's Office opening for editing stops at CheckFileInfo, which says the file is read-only for them.
        let edit = try await WopiProcess.run(["simulate", "ms-word:ofe|u|\(wopiSrc)|d|S|e|\(bobID)|n|Plan.docx|a|App", "--access-token", token], timeout: 120)
        #expect(edit.exitCode == 1, "edit as a viewer must fail:\n\(edit.stdout)\n\(edit.stderr)")
        #expect(edit.stderr.contains("CheckFileInfo") && edit.stderr.contains("UserCanWrite"), "\(edit.stderr)")
        let view = try await WopiProcess.run(["simulate", "ms-word:ofv|u|\(wopiSrc)|d|S|e|\(bobID)|n|Plan.docx|a|App", "--access-token", token], timeout: 120)
        #expect(view.exitCode == 0, "view as a viewer must pass:\n\(view.stdout)\n\(view.stderr)")

        // Editor: the same token now saves (the role is read at each request, not from the token).
        try #require(try await run(["shares", "add", setup.fileID, "--with", "bob", "--role", "editor"], setup).exitCode == 0)
        let saved = try await WopiProcess.run(["simulate", "ms-word:ofe|u|\(wopiSrc)|d|S|e|\(bobID)|n|Plan.docx|a|App", "--access-token", token], timeout: 120)
        #expect(saved.exitCode == 0, "edit as an editor must pass:\n\(saved.stdout)\n\(saved.stderr)")

        // Removed: the live token opens nothing.
        try #require(try await run(["shares", "remove", setup.fileID, "--with", "bob"], setup).exitCode == 0)
        let refused = try await RawHTTPConnection.request(port: server.port, "GET", "/wopi/files/\(setup.fileID)?access_token=\(token)")
        #expect(refused.status == 404, "\(refused)")
    }
}
