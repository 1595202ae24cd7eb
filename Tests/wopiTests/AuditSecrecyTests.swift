import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Nothing secret — passwords tried, codes, refresh tokens, client secrets, WOPI tokens, share links —
/// reaches the audit trail: not `wopi audit list`, not the `--audit-log` export, not a byte of the store.
@Suite(.serialized) struct AuditSecrecyTests {
    @Test("sign-ins, refused grants, minted tokens and share links leave no secret in the trail or the store", .timeLimit(.minutes(5)))
    func noSecretsInTheTrail() async throws {
        let export = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-audit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: export) }
        let fixture = try await RoundTripTests.makeFixture(mode: "edit", serveArguments: ["--audit-log", export.path])
        defer { fixture.stop() }
        let host = fixture.server.baseURL
        let wrongPassword = "wrong-password-\(UUID().uuidString)"
        let bogusCode = "bogus-code-\(UUID().uuidString)"
        let bogusRefresh = "bogus-refresh-\(UUID().uuidString)"
        let wrongSecret = "wrong-client-secret-\(UUID().uuidString)"

        // A full OAuth sign-in and save (a real code, access and refresh token, session context).
        let replacement = fixture.data.appendingPathComponent("edit.bin")
        try Data("edited \(UUID().uuidString)".utf8).write(to: replacement)
        let run = try await WopiProcess.run(["simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper,
                                       "--username", RoundTripTests.username, "--password", RoundTripTests.password,
                                       "--client-id", RoundTripTests.clientID, "--client-secret", RoundTripTests.clientSecret,
                                       "--replace-with", replacement.path], timeout: 180)
        #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)")
        // Web front sign-ins, wrong and right.
        #expect(try await FleetAuditTests.webSignIn(fixture.server, username: RoundTripTests.username, password: wrongPassword).status == 401)
        #expect(try await FleetAuditTests.webSignIn(fixture.server, username: RoundTripTests.username, password: RoundTripTests.password).status != 401,
                "the right password signs in (HTTPClient follows the 303 to the folder page)")
        // Refused grants carrying secrets.
        for form in [[("grant_type", "authorization_code"), ("code", bogusCode), ("client_id", RoundTripTests.clientID),
                      ("client_secret", RoundTripTests.clientSecret)],
                     [("grant_type", "refresh_token"), ("refresh_token", bogusRefresh), ("client_id", RoundTripTests.clientID),
                      ("client_secret", RoundTripTests.clientSecret)],
                     [("grant_type", "authorization_code"), ("code", bogusCode), ("client_id", RoundTripTests.clientID),
                      ("client_secret", wrongSecret)]] {
            let answer = try await FleetAuditTests.post("\(host)/oauth2/token", form: form)
            #expect([400, 401].contains(answer.status), "\(answer.status) \(answer.body)")
        }
        // A minted WOPI token, used to make a share link.
        let minted = try RoundTripTests.json(try await WopiProcess.run(["token", "--user", RoundTripTests.username, "--file", fixture.fileID,
                                                                  "--data", fixture.data.path]), "token")
        let token = try #require(minted["access_token"] as? String)
        var share = HTTPClientRequest(url: "\(fixture.wopiSrc)?access_token=\(token)")
        share.method = .POST
        share.headers.add(name: "X-WOPI-Override", value: "GET_SHARE_URL")
        share.headers.add(name: "X-WOPI-UrlType", value: "ReadOnly")
        let shareAnswer = try await FleetAuditTests.send(share)
        let shareJSON = try JSONSerialization.jsonObject(with: Data(shareAnswer.body.utf8)) as? [String: Any]
        let shareToken = String(try #require((shareJSON?["ShareUrl"] as? String)?.split(separator: "/").last))

        // Wait until the host has written what it recorded, then read the trail every way there is.
        let deadline = Date().addingTimeInterval(20)
        var listed = ""
        repeat {
            let list = try await WopiProcess.run(["audit", "list", "--data", fixture.data.path])
            #expect(list.exitCode == 0, "audit list: \(list.stderr)")
            listed = list.stdout
            if listed.contains("sharelink.created") && listed.components(separatedBy: "grant.refused").count > 3 { break }
            try await Task.sleep(for: .milliseconds(200))
        } while Date() < deadline
        for event in ["signin.ok", "signin.failed", "grant.refused", "file.saved", "token.issued", "sharelink.created"] {
            #expect(listed.contains("\"event\":\"\(event)\""), "the trail has \(event) (it is the right trail):\n\(listed)")
        }
        let events = listed.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        for outcome in ["signin.ok", "signin.failed"] {
            #expect(events.contains { $0["event"] as? String == outcome && $0["via"] as? String == "web" && $0["user"] as? String == RoundTripTests.username },
                    "the web front's \(outcome) is in the trail")
        }
        let exported = try String(contentsOf: export, encoding: .utf8)
        #expect(exported.contains("sharelink.created"), "the export has the host's events")
        var stored = Data()
        for case let url as URL in FileManager.default.enumerator(at: fixture.data, includingPropertiesForKeys: nil)!
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            stored.append(try Data(contentsOf: url))
        }
        #expect(stored.count > 0)
        let secrets = [RoundTripTests.password, RoundTripTests.clientSecret, wrongPassword, bogusCode, bogusRefresh, wrongSecret, token, shareToken]
        for (index, secret) in secrets.enumerated() {
            #expect(!listed.contains(secret), "secret \(index) is in wopi audit list")
            #expect(!exported.contains(secret), "secret \(index) is in the --audit-log export")
            #expect(stored.range(of: Data(secret.utf8)) == nil, "secret \(index) is stored in the data folder")
        }
        // Shapes of secrets the test cannot know: WOPI tokens and OAuth parameters.
        for pattern in [#"v1\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"#, #"(?i)(access_token|refresh_token|code|client_secret|password)"\s*:"#] {
            let regex = try NSRegularExpression(pattern: pattern)
            for text in [listed, exported] {
                #expect(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil, "the trail matches \(pattern)")
            }
        }
    }
}
