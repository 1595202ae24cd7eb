import Foundation
import Testing

/// The trash end to end: WOPI DeleteFile and DeleteContainer against `wopi serve` over real HTTP, then
/// `wopi trash list|restore|empty` and `wopi files delete` through the real binary, with their exit codes.
@Suite(.serialized) struct TrashCLITests {
    typealias Ops = OperationsCLITests

    static func trashList(_ data: URL, _ extra: [String] = []) async throws -> [[String: Any]] {
        let listed = try await WopiProcess.run(["trash", "list", "--data", data.path] + extra)
        try #require(listed.exitCode == 0, "trash list: \(listed.stderr)")
        return try listed.stdout.split(separator: "\n").map { try Ops.json(String($0)) }
    }

    /// The path and query of a WOPI URL the host handed out.
    static func pathAndQuery(_ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? "")
    }

    @Test("DeleteFile answers 404 from then on; `wopi trash restore` brings back the same id and content")
    func deleteFileThenRestore() async throws {
        let setup = try await Ops.makeSetup(content: "the body to keep\n")
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data, extraArguments: ["--trash-days", "7"])
        defer { server.stop() }
        let before = try await Ops.checkFileInfo(server, setup)

        let deleted = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)", ["X-WOPI-Override: DELETE"])
        #expect(deleted.status == 200, "\(deleted)")
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)?\(setup.query)").status == 404)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)/contents?\(setup.query)").status == 404)
        #expect(try await Ops.lock(server, setup, "LOCK", "after-delete").status == 404)
        #expect(try await Ops.put(server, setup, Data("new".utf8), lock: "after-delete").status == 404)
        #expect(try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)", ["X-WOPI-Override: DELETE"]).status == 404)
        let history = try await WopiProcess.run(["files", "history", setup.fileID, "--data", setup.data.path])
        #expect(history.exitCode == 2 && history.stderr.contains("no file with id"), "\(history)")

        let listed = try await Self.trashList(setup.data, ["--user", "alice"])
        try #require(listed.count == 1, "\(listed)")
        #expect(listed[0]["id"] as? String == setup.fileID && listed[0]["kind"] as? String == "file" && listed[0]["name"] as? String == "Plan.docx")
        #expect(listed[0]["owner"] as? String == "alice" && listed[0]["size"] as? Int == setup.original.count && listed[0]["trashed"] is String)

        let restored = try await WopiProcess.run(["trash", "restore", setup.fileID, "--data", setup.data.path])
        #expect(restored.exitCode == 0, "\(restored.stderr)")
        let result = try Ops.json(restored.stdout)
        #expect(result["id"] as? String == setup.fileID && result["name"] as? String == "Plan.docx" && result["to_root"] as? Bool == false)
        let after = try await Ops.checkFileInfo(server, setup)
        #expect(after["BaseFileName"] as? String == "Plan.docx" && after["Size"] as? Int == setup.original.count)
        #expect(after["Version"] as? String == before["Version"] as? String)
        let body = try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)/contents?\(setup.query)")
        #expect(body.status == 200 && body.body == setup.original, "\(body)")
        #expect(try await Self.trashList(setup.data).isEmpty)

        let events = try await WopiProcess.run(["audit", "list", "--file", setup.fileID, "--data", setup.data.path])
        #expect(events.stdout.contains("\"file.deleted\"") && events.stdout.contains("\"trash.restored\""), "\(events.stdout)")
    }

    @Test("DeleteContainer sends an empty folder to the trash (404 after) and refuses a full one; restore brings it back")
    func deleteContainerThenRestore() async throws {
        let setup = try await Ops.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }
        let ancestry = try await RawHTTPConnection.request(port: server.port, "GET", "\(setup.path)/ancestry?\(setup.query)")
        try #require(ancestry.status == 200, "\(ancestry)")
        let root = try #require((try Ops.json(ancestry.text)["AncestorsWithRootFirst"] as? [[String: Any]])?.first?["Url"] as? String)
        let created = try await RawHTTPConnection.request(port: server.port, "POST", try Self.pathAndQuery(root),
                                                    ["X-WOPI-Override: CREATE_CHILD_CONTAINER", "X-WOPI-SuggestedTarget: Drafts"])
        try #require(created.status == 200, "\(created)")
        let folderURL = try #require((try Ops.json(created.text)["ContainerPointer"] as? [String: Any])?["Url"] as? String)
        let folder = try Self.pathAndQuery(folderURL)

        let refused = try await RawHTTPConnection.request(port: server.port, "POST", try Self.pathAndQuery(root), ["X-WOPI-Override: DELETE_CONTAINER"])
        #expect(refused.status == 400 && refused.header("X-WOPI-ServerError")?.contains("root folder") == true, "the root is never deleted: \(refused)")
        let deleted = try await RawHTTPConnection.request(port: server.port, "POST", folder, ["X-WOPI-Override: DELETE_CONTAINER"])
        #expect(deleted.status == 200, "\(deleted)")
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", folder).status == 404)
        #expect(try await RawHTTPConnection.request(port: server.port, "GET", folder.replacingOccurrences(of: "?", with: "/children?")).status == 404)

        let listed = try await Self.trashList(setup.data)
        try #require(listed.count == 1, "\(listed)")
        #expect(listed[0]["kind"] as? String == "container" && listed[0]["name"] as? String == "Drafts")
        let id = try #require(listed[0]["id"] as? String)
        #expect(try await WopiProcess.run(["trash", "restore", id, "--data", setup.data.path]).exitCode == 0)
        let info = try await RawHTTPConnection.request(port: server.port, "GET", folder)
        #expect(info.status == 200, "\(info)")
        #expect(try Ops.json(info.text)["Name"] as? String == "Drafts", "\(info)")
    }

    @Test("restore refuses a taken name (exit 1) unless --as; bad input is exit 2; empty removes for good")
    func restoreConflictsAndEmpty() async throws {
        let setup = try await Ops.makeSetup()
        defer { setup.remove() }
        let data = setup.data.path
        let deleted = try await WopiProcess.run(["files", "delete", setup.fileID, "--data", data])
        #expect(deleted.exitCode == 0, "\(deleted.stderr)")
        #expect(try Ops.json(deleted.stdout)["kind"] as? String == "file")
        // A new file takes the name, with a new id.
        let document = setup.data.deletingLastPathComponent().appendingPathComponent("Plan.docx")
        let added = try await WopiProcess.run(["files", "add", document.path, "--owner", "alice", "--data", data])
        try #require(added.exitCode == 0, "\(added.stderr)")
        let newID = try #require(try Ops.json(added.stdout)["id"] as? String)
        #expect(newID != setup.fileID)

        let taken = try await WopiProcess.run(["trash", "restore", setup.fileID, "--data", data])
        #expect(taken.exitCode == 1 && taken.stderr.contains("'Plan.docx' is taken") && taken.stderr.contains("--as"), "\(taken)")
        #expect(try await Self.trashList(setup.data).count == 1, "a refused restore changes nothing")
        for (arguments, problem) in [
            (["trash", "restore", "not/an-id"], "not a valid file or folder id"),
            (["trash", "restore", "0123456789abcdef0123456789abcdef"], "no item with id"),
            (["trash", "restore", setup.fileID, "--as", "a/b.docx"], "is not allowed"),
            (["trash", "empty", "--older-than", "soon"], "--older-than 'soon'"),
            (["trash", "empty", "--older-than", "-1"], "--older-than"),
            (["trash", "list", "--user", "nobody"], "no user named 'nobody'"),
            (["files", "delete", "0123456789abcdef0123456789abcdef"], "no file or folder"),
            (["serve", "--trash-days", "0"], "--trash-days must be between 1 and 36500"),
        ] {
            let result = try await WopiProcess.run(arguments + ["--data", data])
            #expect(result.exitCode == 2 && result.stderr.contains(problem), "\(arguments): \(result)")
        }

        let renamed = try await WopiProcess.run(["trash", "restore", setup.fileID, "--as", "Plan (old).docx", "--data", data])
        #expect(renamed.exitCode == 0, "\(renamed)")
        #expect(try Ops.json(renamed.stdout)["name"] as? String == "Plan (old).docx", "\(renamed)")
        let files = try await WopiProcess.run(["files", "list", "--owner", "alice", "--data", data]).stdout
        #expect(files.contains("Plan (old).docx") && files.contains(setup.fileID))

        // Emptying: --older-than keeps what is recent; without it everything goes, bodies included.
        #expect(try await WopiProcess.run(["files", "delete", setup.fileID, "--data", data]).exitCode == 0)
        let kept = try await WopiProcess.run(["trash", "empty", "--older-than", "1", "--data", data])
        #expect(kept.exitCode == 0, "\(kept)")
        #expect(try Ops.json(kept.stdout)["removed"] as? Int == 0, "\(kept)")
        let bodiesBefore = try Self.bodyCount(setup.data)
        let emptied = try await WopiProcess.run(["trash", "empty", "--data", data])
        #expect(emptied.exitCode == 0, "\(emptied.stderr)")
        #expect(try Ops.json(emptied.stdout)["items"] as? [String] == [setup.fileID])
        #expect(try Self.bodyCount(setup.data) == bodiesBefore - 1, "the trashed body is deleted")
        #expect(try await Self.trashList(setup.data).isEmpty)
        let gone = try await WopiProcess.run(["trash", "restore", setup.fileID, "--data", data])
        #expect(gone.exitCode == 2 && gone.stderr.contains("no item with id"), "\(gone)")
    }

    /// How many document bodies the data folder holds.
    static func bodyCount(_ data: URL) throws -> Int {
        guard let walker = FileManager.default.enumerator(at: data, includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
        var count = 0
        for case let url as URL in walker where url.path.contains("/blobs/") {
            if try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true { count += 1 }
        }
        return count
    }
}
