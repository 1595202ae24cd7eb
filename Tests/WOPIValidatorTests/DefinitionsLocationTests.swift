import Foundation
import Testing
@testable import WOPIValidator

@Suite("Where the definitions are looked for")
struct DefinitionsLocationTests {
    /// A temporary tree with a TestCases.xml in each of the given folders (relative paths).
    static func tree(_ folders: [String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("definitions-lookup-\(UUID().uuidString)")
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("<WopiValidation/>".utf8).write(to: url.appendingPathComponent("TestCases.xml"))
        }
        return root
    }

    @Test("--testcases, then WOPI_VALIDATOR_DIR, then the XDG data folder, then share/ beside the binary")
    func order() throws {
        let root = try Self.tree(["option", "env", "xdg/wopikit/wopi-validator", "home/.local/share/wopikit/wopi-validator",
                                  "prefix/share/wopikit/wopi-validator"])
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = root.appendingPathComponent("prefix/bin/wopi")
        let all = ["WOPI_VALIDATOR_DIR": root.appendingPathComponent("env").path, "XDG_DATA_HOME": root.appendingPathComponent("xdg").path,
                   "HOME": root.appendingPathComponent("home").path]

        let option = try DefinitionsLocation.find(testCases: root.appendingPathComponent("option/TestCases.xml").path, environment: all,
                                                  executable: binary)
        #expect(option.source == .option && option.folder.lastPathComponent == "option")
        #expect(try DefinitionsLocation.find(environment: all, executable: binary).source == .environment)

        var environment = all
        environment["WOPI_VALIDATOR_DIR"] = nil
        let xdg = try DefinitionsLocation.find(environment: environment, executable: binary)
        #expect(xdg.source == .dataHome && xdg.folder.path.hasPrefix(root.appendingPathComponent("xdg").path))

        environment["XDG_DATA_HOME"] = nil
        let home = try DefinitionsLocation.find(environment: environment, executable: binary)
        #expect(home.source == .dataHome && home.folder.path.hasPrefix(root.appendingPathComponent("home/.local/share").path))

        environment["HOME"] = root.appendingPathComponent("nobody").path
        let beside = try DefinitionsLocation.find(environment: environment, executable: binary)
        #expect(beside.source == .besideExecutable)
        #expect(beside.testCasesURL.path == root.appendingPathComponent("prefix/share/wopikit/wopi-validator/TestCases.xml").standardizedFileURL.path)
    }

    @Test("nothing found, or a named place without TestCases.xml: one line naming `wopi validator fetch`")
    func notFound() throws {
        let root = try Self.tree([])
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["HOME": root.path]
        #expect(throws: DefinitionsLocation.NotFound.self) { try DefinitionsLocation.find(environment: environment) }
        do {
            _ = try DefinitionsLocation.find(environment: environment)
        } catch {
            #expect(error.description.contains(root.appendingPathComponent(".local/share/wopikit/wopi-validator").path))
            #expect(error.description.hasSuffix("run `wopi validator fetch`, or set WOPI_VALIDATOR_DIR to a folder holding them"))
            #expect(!error.description.contains("\n"))
        }
        #expect(throws: DefinitionsLocation.NotFound(reason: "WOPI_VALIDATOR_DIR '\(root.path)' holds no TestCases.xml")) {
            try DefinitionsLocation.find(environment: ["WOPI_VALIDATOR_DIR": root.path])
        }
        #expect(throws: DefinitionsLocation.NotFound(reason: "--testcases '/nonexistent/TestCases.xml' does not exist")) {
            try DefinitionsLocation.find(testCases: "/nonexistent/TestCases.xml", environment: [:])
        }
    }
}
