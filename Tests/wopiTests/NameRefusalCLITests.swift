import Foundation
import Testing

/// `wopi files add` refuses names that would spoof another (bidirectional controls) or that are only
/// an extension, with exit code 2, one line naming the problem, and nothing stored.
@Suite struct NameRefusalCLITests {
    @Test("files add refuses bidirectional controls and extension-only names with exit code 2 and stores nothing",
          arguments: [("invoice\u{202E}xcod.docx", "bidirectional control U+202E at offset 7"),
                      ("a\u{2067}b.docx", "bidirectional control U+2067 at offset 1"),
                      (".docx", "'.docx' is only an extension"),
                      (" .docx", "'.docx' is only an extension")])
    func refused(name: String, problem: String) async throws {
        let setup = try await OperationsCLITests.makeSetup()
        defer { setup.remove() }
        let document = setup.data.deletingLastPathComponent().appendingPathComponent("Local.docx")
        try Data("body".utf8).write(to: document)
        let added = try await WopiProcess.run(["files", "add", document.path, "--owner", "alice", "--name", name, "--data", setup.data.path])
        #expect(added.exitCode == 2, "\(added.stderr)")
        #expect(added.stderrLines.count == 1 && added.stderr.contains(problem), "\(added.stderr)")
        let listed = try await WopiProcess.run(["files", "list", "--owner", "alice", "--data", setup.data.path])
        #expect(listed.exitCode == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").count == 1, "only the setup's document: \(listed.stdout)")

        // A folder name with a bidirectional control is refused the same way.
        let folder = try await WopiProcess.run(["files", "add", document.path, "--owner", "alice", "--folder", "Q\u{202E}4", "--data", setup.data.path])
        #expect(folder.exitCode == 2 && folder.stderr.contains("bidirectional control U+202E"), "\(folder.stderr)")
    }
}
