import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `wopi serve` as a new user meets it: the first run on an empty folder, and stopping it.
@Suite(.serialized) struct ServeCLITests {
    @Test("an empty data folder gets the demo user and three real Office documents; a second run adds nothing; SIGINT and SIGTERM stop cleanly",
          .timeLimit(.minutes(10)))
    func firstRun() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-first-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }

        let server = try await WopiServer.start(data: data)
        let log = server.log
        #expect(log.contains("user: demo"), "welcome text: \(log)")
        let secrets = data.appendingPathComponent("first-start-secrets.txt")
        let password = try #require(try String(contentsOf: secrets, encoding: .utf8).firstMatch(of: /demo password: +(\S+)/)?.1,
                                    "the generated password is in the data folder's secrets file")
        #expect(password.count >= 12)
        #expect(!log.contains(password), "the password stays out of the output")
        let ids = log.matches(of: /\S.*\.(docx|xlsx|pptx) +id ([0-9a-f]{32})/).map { (String($0.1), String($0.2)) }
        #expect(Set(ids.map(\.0)) == ["docx", "xlsx", "pptx"], "one sample of each kind: \(log)")
        #expect(log.contains("Web front: \(server.baseURL)/   (sign in as demo with the password in \(secrets.path))"), "the banner names the web front: \(log)")
        let signIn = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/"), timeout: .seconds(30))
        let signInPage = String(buffer: try await signIn.body.collect(upTo: 1 << 20))
        #expect(signIn.status.code == 200 && signInPage.contains("<form"), "the banner's address has a sign-in page")

        for (kind, id) in ids {
            let minted = try await WopiProcess.run(["token", "--user", "demo", "--file", id, "--data", data.path])
            #expect(minted.exitCode == 0, "\(minted.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(minted.stdout.utf8)) as? [String: Any]
            let token = try #require(object?["access_token"] as? String)
            let source = try #require(object?["wopi_src"] as? String)
            #expect(source == "\(server.baseURL)/wopi/files/\(id)", "wopi_src uses the URL the server runs under")
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(source)/contents?access_token=\(token)"), timeout: .seconds(30))
            #expect(response.status.code == 200)
            let body = try await response.body.collect(upTo: 8 << 20)
            #expect(body.readableBytesView.starts(with: [0x50, 0x4B, 0x03, 0x04]), "the .\(kind) sample is a ZIP package (OOXML)")
        }
        #expect(try await offPool { server.stop(signal: SIGINT) } == 0, "SIGINT stops the server with exit status 0")

        let again = try await WopiServer.start(data: data)
        #expect(!again.log.contains("Created the demo user"), "a data folder with users is left as it is")
        #expect(again.log.contains("Web front: \(again.baseURL)/   (sign in as demo with the password given when this data folder was created)"),
                "every start names the web front and its demo user: \(again.log)")
        let users = try await WopiProcess.run(["users", "list", "--data", data.path])
        #expect(users.stdout.split(separator: "\n").count == 1)
        #expect(try await offPool { again.stop(signal: SIGTERM) } == 0, "SIGTERM stops the server with exit status 0")
    }

    @Test("--event-loops (or WOPI_EVENT_LOOPS) sets how many threads serve connections; a count out of range is exit 2",
          .timeLimit(.minutes(10)))
    func eventLoops() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-event-loops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }

        for (arguments, environment, expected) in [(["--event-loops", "3"], [:], 3), ([], ["WOPI_EVENT_LOOPS": "2"], 2)] {
            let port = try WopiServer.freePort()
            let server = try WopiServer.launch(["--port", String(port), "--data", data.path] + arguments, environment: environment)
            defer { server.stop() }
            try await server.waitUntilListening(port: port)
            let health = try await RawHTTPConnection.request(port: port, "GET", "/health")
            #expect(health.status == 200)
            #if os(Linux)
            // NIO names the threads of a group it creates NIO-ELT-<group>-#<n>; its shared singleton's are NIO-SGLTN-….
            let loops = server.threadNames().filter { $0.hasPrefix("NIO-ELT-") }
            #expect(loops.count == expected, "\(arguments) \(environment): \(server.threadNames())")
            #endif
            #expect(try await offPool { server.stop() } == 0)
        }

        for count in ["0", "257", "two"] {
            let refused = try await WopiProcess.run(["serve", "--event-loops", count, "--data", data.path])
            #expect(refused.exitCode == 2 && refused.stderrLines.count == 1, "\(count): \(refused.stderr)")
            #expect(refused.stderr.contains("event-loops"), "names the option: \(refused.stderr)")
        }
    }
}
