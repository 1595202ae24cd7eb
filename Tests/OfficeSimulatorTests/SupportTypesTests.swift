import Foundation
import OfficeSimulator
import OfficeURLScheme
import Testing
import WOPIHTTPClient

@Suite("Simulator support types")
struct SupportTypesTests {
    @Test("the shell launcher appends the request URL as one single-quoted argument and reads the last line")
    func shellLauncher() async throws {
        let url = "fakeapp:client_id=a&b='quoted'&c=$(touch /tmp/never)|x"
        // printf prints a first line, then the argument it was given; the launcher must return the argument intact.
        let launcher = ShellAppSignInLauncher(command: "printf 'noise\\n%s\\n\\n'")
        #expect(try await launcher.open(url) == url)
        #expect(ShellAppSignInLauncher.shellQuoted("it's") == "'it'\\''s'")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never"))
    }

    @Test("a failing or silent app-sign-in command is an error naming the exit status and its stderr")
    func shellLauncherFailures() async {
        await #expect(throws: AppSignInLaunchError("the app-sign-in command exited with status 3: bad password")) {
            try await ShellAppSignInLauncher(command: "echo bad password >&2; exit 3; :").open("x:y=1")
        }
        await #expect(throws: AppSignInLaunchError("the app-sign-in command printed nothing on standard output")) {
            try await ShellAppSignInLauncher(command: "true").open("x:y=1")
        }
    }

    @Test("the deterministic edit appends to a ZIP archive comment and keeps the archive well-formed")
    func zipCommentEdit() throws {
        // An empty ZIP archive: just the end-of-central-directory record with a 2-byte comment "hi".
        let eocd: [UInt8] = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0] + Array("hi".utf8)
        let edited = [UInt8](ContentEdit.edited(Data(eocd)))
        let marker = Array(ContentEdit.marker.utf8)
        #expect(edited.count == eocd.count + marker.count)
        let commentLength = Int(edited[20]) | Int(edited[21]) << 8
        #expect(commentLength == 2 + marker.count)
        #expect(Array(edited[22...]) == Array("hi".utf8) + marker)
        // Not a ZIP: the marker is appended.
        #expect(ContentEdit.edited(Data("plain".utf8)) == Data(("plain" + ContentEdit.marker).utf8))
        // Editing twice changes the content again.
        #expect(ContentEdit.edited(ContentEdit.edited(Data(eocd))) != ContentEdit.edited(Data(eocd)))
    }

    @Test("a host answer keeps the WOPI headers and a short body, never a whole document")
    func hostAnswer() {
        let response = SimulatorResponse(status: 409, headers: [
            SimulatorHeader("X-WOPI-Lock", ""), SimulatorHeader("Server", "x"), SimulatorHeader("X-WOPI-LockFailureReason", "mismatch"),
        ], body: Data(String(repeating: "long  body\n", count: 100).utf8))
        let answer = HostAnswer(response)
        #expect(answer.headers.map(\.name) == ["X-WOPI-Lock", "X-WOPI-LockFailureReason"])
        #expect(answer.bodyExcerpt.count == HostAnswer.maximumExcerptLength + 1 && answer.bodyExcerpt.hasPrefix("long body long"))
        #expect(answer.description.hasPrefix("HTTP 409; X-WOPI-Lock: \"\"; X-WOPI-LockFailureReason: \"mismatch\"; body: long body"))
    }

    @Test("invoke URIs Office would not open are refused with the reason")
    func invokeChecks() throws {
        func problem(_ text: String) throws -> String? { InvokeURICheck.problem(with: try OfficeInvokeURI(string: text)) }
        #expect(try problem("ms-word:ofe|u|https://h/wopi/files/1|d|S|e|U|n|a.docx|a|App") == nil)
        #expect(try problem("ms-word:ofe|u|https://h/wopi/files/1|d|S|e|U|n|a.docx")?.contains("|a|") == true)
        #expect(try problem("ms-word:ofe|u|https://h/wopi/files/1|d|S|e|U|n|a.xlsx|a|App")?.contains("not a file Microsoft Word opens") == true)
        #expect(try problem("onenote:ofe|u|https://h/wopi/files/1|d|S|e|U|n|a.one|a|App")?.contains("only in Word, Excel and PowerPoint") == true)
        #expect(try problem("ms-word:ofe|u|https://h/wopi/files/1?access_token=t|d|S|e|U|n|a.docx|a|App")?.contains("access_token") == true)
    }
}
