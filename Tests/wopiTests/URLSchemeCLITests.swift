import Foundation
import Testing
import TestSupport

/// Drives the built `wopi` binary: `link`, `parse` and `doctor` as the README specifies them.
@Suite struct URLSchemeCLITests {
    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(text)")
    }

    @Test func linkPrintsTheSeedExamplesByteForByte() async throws {
        let edit = try await WopiProcess.run(["link", "--app", "word", "--mode", "edit", "--url", "https://contoso/Q4/budget.docx",
                                        "--passback", "clouddrive", "--context", "folderviewQ4"])
        #expect(edit.exitCode == 0)
        #expect(edit.stdout == "ms-word:ofe|u|https://contoso/Q4/budget.docx|p|clouddrive|c|folderviewQ4\n")
        #expect(edit.stderr.isEmpty)
        let wopi = try await WopiProcess.run(["link", "--app", "word", "--mode", "edit", "--wopi-src", "https://contoso/wopi/file/12312",
                                        "--service", "Contoso", "--user", "a3243d", "--name", "document1.docx", "--source", "app"])
        #expect(wopi.exitCode == 0)
        #expect(wopi.stdout == "ms-word:ofe|u|https://contoso/wopi/file/12312|d|Contoso|e|a3243d|n|document1.docx|a|App\n")
    }

    @Test func linkNewFromTemplateAndEncodedForm() async throws {
        let nft = try await WopiProcess.run(["link", "--app", "excel", "--mode", "new-from-template", "--url", "https://contoso/t/b.xltx",
                                       "--save-location", "https://contoso/Q4", "--percent-encoded"])
        #expect(nft.exitCode == 0)
        #expect(nft.stdout == "ms-excel:nft%7Cu%7Chttps%3A//contoso/t/b.xltx%7Cs%7Chttps://contoso/Q4\n")
        let long = try await WopiProcess.run(["link", "--app", "excel", "--url", "https://contoso/" + String(repeating: "x", count: 220)])
        #expect(long.exitCode == 0)
        #expect(long.stderr.hasPrefix("warning: "))
    }

    @Test func parseReportsEachKindWithTheIssuesFieldNames() async throws {
        let invoke = try await Self.json(WopiProcess.run(["parse", "ms-word:ofe%7Cu%7Chttps%3A//contoso/wopi/file/12312%7Cd%7CContoso%7Ce%7Ca3243d%7Cn%7Cdocument1.docx%7Ca%7CApp%7Cp%7Cclouddrive%7Cc%7Cfolder%2520Q4%7Cx%7C1"]).stdout)
        #expect(invoke["kind"] as? String == "invoke")
        #expect(invoke["app"] as? String == "word" && invoke["scheme"] as? String == "ms-word" && invoke["mode"] as? String == "edit")
        #expect(invoke["url"] as? String == "https://contoso/wopi/file/12312")
        #expect(invoke["service"] as? String == "Contoso" && invoke["user"] as? String == "a3243d")
        #expect(invoke["fileName"] as? String == "document1.docx" && invoke["source"] as? String == "App")
        #expect(invoke["passback"] as? String == "clouddrive" && invoke["context"] as? String == "folder Q4")
        let extra = try #require(invoke["extra"] as? [[String: String]])
        #expect(extra == [["descriptor": "x", "value": "1"]])

        let nft = try await Self.json(WopiProcess.run(["parse", "ms-word:nft|u|https://h/t.dotx|s|https://h/docs"]).stdout)
        #expect(nft["mode"] as? String == "new-from-template" && nft["saveLocation"] as? String == "https://h/docs")

        let back = try await Self.json(WopiProcess.run(["parse", "clouddrive:ofe|u|https://contoso/Q4/budget.docx|z|yes|c|folderviewQ4"]).stdout)
        #expect(back["kind"] as? String == "passback" && back["scheme"] as? String == "clouddrive" && back["mode"] as? String == "edit")
        #expect(back["url"] as? String == "https://contoso/Q4/budget.docx" && back["uploadPending"] as? Bool == true)
        #expect(back["context"] as? String == "folderviewQ4")

        let request = try await Self.json(WopiProcess.run(["parse", "Contoso:client_id=abcdefg&response_type=code&scope=wopi&rs=enUS&build=16.1.1234&platform=iOS&app=word&action=76d173ad"]).stdout)
        #expect(request["kind"] as? String == "signInRequest" && request["scheme"] as? String == "Contoso")
        #expect(request["clientId"] as? String == "abcdefg" && request["responseType"] as? String == "code" && request["scope"] as? String == "wopi")
        #expect(request["culture"] as? String == "enUS" && request["build"] as? String == "16.1.1234" && request["platform"] as? String == "iOS")
        #expect(request["officeApp"] as? String == "word" && request["action"] as? String == "76d173ad")

        let response = try await Self.json(WopiProcess.run(["parse", "ms-word-tp:code=abcdefg&tk=https%3A%2F%2Fcontoso.com%2Ftoken&sc=xyz&action=76d173ad"]).stdout)
        #expect(response["kind"] as? String == "signInResponse" && response["scheme"] as? String == "ms-word-tp")
        #expect(response["code"] as? String == "abcdefg" && response["tokenEndpoint"] as? String == "https://contoso.com/token")
        #expect(response["sessionContext"] as? String == "xyz" && response["action"] as? String == "76d173ad")

        let failed = try await Self.json(WopiProcess.run(["parse", "ms-excel-tp:error=access_denied&error_description=no%20way&error_uri=https%3A%2F%2Fc%2Fe&action=a"]).stdout)
        #expect(failed["error"] as? String == "access_denied" && failed["errorDescription"] as? String == "no way")
        #expect(failed["errorUri"] as? String == "https://c/e" && failed["code"] == nil)
    }

    @Test func doctorExitCodes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let schemes = ["ms-word", "ms-word-wopi-support-1605", "ms-excel", "ms-excel-wopi-support-1605",
                       "ms-powerpoint", "ms-powerpoint-wopi-support-1605", "onenote"]
        let good: [String: Any] = ["LSApplicationQueriesSchemes": schemes,
                                   "CFBundleURLTypes": [["CFBundleURLSchemes": ["clouddrive", "contoso"]]]]
        let goodURL = directory.appendingPathComponent("Good.plist")
        try PropertyListSerialization.data(fromPropertyList: good, format: .binary, options: 0).write(to: goodURL)
        let clean = try await WopiProcess.run(["doctor", goodURL.path, "--passback", "clouddrive", "--sign-in-scheme", "contoso"])
        #expect(clean.exitCode == 0, "\(clean.stdout)")

        let bad: [String: Any] = ["LSApplicationQueriesSchemes": ["ms-word"]]
        let badURL = directory.appendingPathComponent("Bad.plist")
        try PropertyListSerialization.data(fromPropertyList: bad, format: .xml, options: 0).write(to: badURL)
        let dirty = try await WopiProcess.run(["doctor", badURL.path, "--passback", "clouddrive", "--sign-in-scheme", "contoso"])
        #expect(dirty.exitCode == 1)
        #expect(dirty.stdout.contains("ms-word-wopi-support-1605") && dirty.stdout.contains("fix:"))
        #expect(dirty.stdout.contains("'clouddrive'") && dirty.stdout.contains("'contoso'"))

        let missing = try await WopiProcess.run(["doctor", directory.appendingPathComponent("nope.plist").path])
        #expect(missing.exitCode == 2 && missing.stderrLines.count == 1)
    }

    @Test(arguments: [
        (["parse", "ms-foo:https://h/a"], "ms-foo"),
        (["parse", "ms-word:view|u|https://h/a"], "view"),
        (["parse", "ms-word:ofe|p|clouddrive"], "|u|"),
        (["parse", "ms-word:https://h/a.docx|p|x"], "abbreviated"),
        (["parse", "ms-word:ofe|u|ftp://h/a"], "ftp://h/a"),
        (["link", "--app", "word", "--url", "https://h/a", "--name", "a?b.docx"], "'?'"),
        (["link", "--app", "word", "--url", "https://h/a", "--passback", "1bad"], "1bad"),
        (["link", "--app", "word", "--mode", "nft", "--url", "https://h/a", "--save-location", "https://other/x"], "other"),
        (["link", "--app", "wordpad", "--url", "https://h/a"], "wordpad"),
        (["link", "--app", "word", "--mode", "print", "--url", "https://h/a"], "print"),
    ])
    func invalidInputExitsTwoWithOneLine(arguments: [String], mentions: String) async throws {
        let result = try await WopiProcess.run(arguments)
        #expect(result.exitCode == 2, "\(arguments)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func parseSurvivesRandomInput() async throws {
        var rng = SplitMix64(seed: 0x5EED)
        let alphabet = Array("|%:/&=?#ofevntuzcpdsa-_.~ 0123456789ABCDEFxyzä€中\"'\\\t")
        let prefixes = ["ms-word:", "ms-word:ofe|", "ms-word:ofe%7C", "ms-excel:https://", "clouddrive:ofe|u|", "contoso:client_id=",
                        "ms-word-tp:", "x:", "", "ms-word:nft|u|https://h/t|s|"]
        for _ in 0..<150 {
            let length = Int.random(in: 0...40, using: &rng)
            let body = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            let input = prefixes.randomElement(using: &rng)! + body
            // `--` keeps inputs starting with '-' from being read as options.
            let result = try await WopiProcess.run(["parse", "--", input], timeout: 20)
            #expect(result.exitCode == 0 || result.exitCode == 2, "input \(input.debugDescription): \(result.stderr)")
            if result.exitCode == 0 {
                #expect((try? Self.json(result.stdout))?["kind"] != nil, "input \(input.debugDescription)")
            } else {
                #expect(result.stderrLines.count == 1, "input \(input.debugDescription): \(result.stderr)")
            }
        }
    }
}
