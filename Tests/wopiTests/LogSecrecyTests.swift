import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Nothing secret — tokens, codes, passwords, client secrets — appears in the host's log.
/// Drives a full app-to-app sign-in, a web sign-in and an edit at the most verbose log level, then
/// reads everything `wopi serve` wrote.
@Suite(.serialized) struct LogSecrecyTests {
    @Test("a full sign-in and edit at trace level logs no token, code, password or client secret", .timeLimit(.minutes(5)))
    func noSecretsInLog() async throws {
        let fixture = try await RoundTripTests.makeFixture(mode: "edit", serveArguments: ["--log-level", "trace"])
        defer { fixture.stop() }
        let replacement = fixture.data.appendingPathComponent("secret-edit.bin")
        try Data("edited \(UUID().uuidString)".utf8).write(to: replacement)

        for signIn in [["--app-signin-command", try fixture.appSigninCommand],
                       ["--username", RoundTripTests.username, "--password", RoundTripTests.password]] {
            let run = try await WopiProcess.run(["simulate", fixture.invokeURI, "--bootstrapper", fixture.bootstrapper] + signIn + [
                "--client-id", RoundTripTests.clientID, "--client-secret", RoundTripTests.clientSecret, "--replace-with", replacement.path,
            ], timeout: 180)
            #expect(run.exitCode == 0, "simulate failed:\n\(run.stdout)\n\(run.stderr)")
        }
        // A token minted by hand and used once, so there is a known token value to look for.
        let minted = try RoundTripTests.json(try await WopiProcess.run(["token", "--user", RoundTripTests.username, "--file", fixture.fileID,
                                                                  "--data", fixture.data.path]), "token")
        let token = try #require(minted["access_token"] as? String)
        _ = try await RoundTripTests.stored(fixture)
        // A share link's path is its token: open one and its download.
        var share = HTTPClientRequest(url: "\(fixture.wopiSrc)?access_token=\(token)")
        share.method = .POST
        share.headers.add(name: "X-WOPI-Override", value: "GET_SHARE_URL")
        share.headers.add(name: "X-WOPI-UrlType", value: "ReadOnly")
        let shareAnswer = try await HTTPClient.shared.execute(share, timeout: .seconds(30))
        let shareJSON = try JSONSerialization.jsonObject(with: Data(try await shareAnswer.body.collect(upTo: 1 << 16).readableBytesView)) as? [String: Any]
        let shareURL = try #require(shareJSON?["ShareUrl"] as? String)
        let shareToken = String(try #require(shareURL.split(separator: "/").last))
        for url in [shareURL, shareURL + "/content"] {
            let opened = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            #expect(opened.status.code == 200)
            _ = try await opened.body.collect(upTo: 1 << 20)
        }

        let log = fixture.server.log
        #expect(log.contains("/wopi/files/\(fixture.fileID)"), "the log has the requests (it is the right log)")
        #expect(log.contains("/oauth2/token"))
        #expect(log.contains("/share/<token>"), "share requests are logged, redacted")
        for secret in [RoundTripTests.password, RoundTripTests.clientSecret, token, shareToken] {
            #expect(!log.contains(secret), "a secret appears in the log")
        }
        // Shapes of secrets whose values the test cannot know: WOPI tokens, bearer headers, OAuth parameters.
        let patterns = [#"v1\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"#, #"(?i)bearer:?\s+[A-Za-z0-9._~+/-]{8,}"#,
                        #"(?i)(access_token|refresh_token|code|client_secret|password|sc)=[^&\s"]{4,}"#]
        for pattern in patterns {
            let regex = try NSRegularExpression(pattern: pattern)
            let match = regex.firstMatch(in: log, range: NSRange(log.startIndex..., in: log))
            #expect(match == nil, "log matches \(pattern): \(match.map { String(log[Range($0.range, in: log)!].prefix(60)) } ?? "")")
        }
    }
}
