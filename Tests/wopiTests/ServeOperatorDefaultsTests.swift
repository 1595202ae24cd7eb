#if os(Linux)
import Foundation
import Glibc
import Testing
import TestSupport

/// What an operator who runs `wopi serve` in a container relies on without configuring it: no secret in the
/// output (a container's log keeps it for its whole life), private files whatever the umask, links only with an
/// address clients can reach, and a stop on SIGTERM that never waits out a database that does not answer.
@Suite(.serialized) struct ServeOperatorDefaultsTests {
    static func temporaryFolder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wopi-\(name)-\(UUID().uuidString)")
    }

    static func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test("the demo password and Office's client secret go to a 0600 file in the data folder that the output names, never to the output",
          .timeLimit(.minutes(5)))
    func secretsStayOutOfTheOutput() async throws {
        let data = Self.temporaryFolder("secrets")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try await WopiServer.start(data: data)
        let file = data.appendingPathComponent("first-start-secrets.txt")
        #expect(try Self.mode(file) == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        let password = try #require(text.firstMatch(of: /demo password: +(\S+)/)?.1, "\(text)")
        let secret = try #require(text.firstMatch(of: /client secret: +(\S+)/)?.1, "\(text)")
        let clientID = try #require(text.firstMatch(of: /client id: +(\S+)/)?.1, "\(text)")

        let log = server.log
        #expect(!log.contains(password) && !log.contains(secret), "a secret is in the output: \(log)")
        #expect(log.contains("its password is in \(file.path)"), "the output names the file: \(log)")
        #expect(log.contains("client secret:   in \(file.path)"), "the output names the file: \(log)")
        #expect(try await UsersSessionsCLITests.signIn(server, user: "demo", password: String(password)) != nil, "the file's password signs in")
        #expect(try await AppSigninCLITests.clientAuthenticates(server.baseURL, String(clientID), String(secret)), "the file's client secret authenticates")
        #expect(try await offPool { server.stop() } == 0)

        // A restart generates nothing: the file stays as it was, and the output points at no secret.
        let again = try await WopiServer.start(data: data)
        #expect(try String(contentsOf: file, encoding: .utf8) == text)
        #expect(!again.log.contains("first-start-secrets"), "\(again.log)")
        #expect(try await offPool { again.stop() } == 0)
    }

    @Test("a port another process listens on: exit 1 with one line naming the address and the reason, not a clean stop",
          .timeLimit(.minutes(5)))
    func takenPortIsAFailure() async throws {
        let data = Self.temporaryFolder("taken-port")
        defer { try? FileManager.default.removeItem(at: data) }
        let taken = try LocalPort.listener(backlog: 1)
        defer { close(taken.descriptor) }
        let result = try await WopiProcess.run(["serve", "--port", String(taken.port), "--data", data.path], timeout: 120)
        #expect(result.exitCode == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot listen on 127.0.0.1, port \(taken.port): Address already in use"), "\(result.stderr)")
        #expect(!result.stderr.contains("stopped after the drain timeout"), "\(result.stderr)")
    }

    @Test("under umask 000 the data folder, the database with its WAL files, the bodies and their folders are created 0600 and 0700",
          .timeLimit(.minutes(5)))
    func filesArePrivateWhateverTheUmask() async throws {
        let data = Self.temporaryFolder("modes")
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try WopiServer.freePort()
        let server = try WopiServer.launch(["--host", "127.0.0.1", "--port", String(port), "--data", data.path], umask: "000")
        defer { server.stop() }
        try await server.waitUntilListening(port: port)

        #expect(try Self.mode(data) == 0o700)
        var seen: [String: Int] = [:]
        let walker = try #require(FileManager.default.enumerator(at: data, includingPropertiesForKeys: nil))
        for case let url as URL in walker {
            seen[String(url.path.dropFirst(data.path.count + 1))] = try Self.mode(url)
        }
        let blobFolders = seen.filter { $0.key.hasPrefix("blobs/") && $0.key.split(separator: "/").count == 2 && !$0.key.hasSuffix(".staging") }
        let bodies = seen.filter { $0.key.split(separator: "/").count == 3 && !$0.key.contains(".staging") }
        #expect(seen["wopi.sqlite"] == 0o600 && seen["blobs"] == 0o700 && seen["blobs/.staging"] == 0o700, "\(seen)")
        #expect(seen.keys.contains("wopi.sqlite-wal"), "the database runs in WAL mode: \(seen)")
        #expect(bodies.count == 3 && !blobFolders.isEmpty, "the three samples' bodies and their folders: \(seen)")
        let open = seen.filter { $0.value & 0o077 != 0 }
        #expect(open.isEmpty, "group or others may open: \(open.mapValues { String($0, radix: 8) })")
    }

    @Test("the banner's links use --public-url; bound to 0.0.0.0 without one, it prints no link and says in one line that links need it",
          .timeLimit(.minutes(5)))
    func bannerLinks() async throws {
        let data = Self.temporaryFolder("links")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try await WopiServer.start(data: data, extraArguments: ["--public-url", "https://wopi.example.test:8443"])
        let log = server.log
        let sources = log.matches(of: /WOPISrc: (\S+)/).map { String($0.1) }
        #expect(sources.count == 3 && sources.allSatisfy { $0.hasPrefix("https://wopi.example.test:8443/wopi/files/") }, "\(log)")
        #expect(log.contains("Web front: https://wopi.example.test:8443/ "), "\(log)")
        #expect(try await offPool { server.stop() } == 0)

        // The banner is printed before the host binds. With the port taken on 127.0.0.1, binding 0.0.0.0 fails,
        // so the test reads the banner without the host ever listening beyond loopback.
        let taken = try LocalPort.listener(backlog: 1)
        defer { close(taken.descriptor) }
        let wildcard = Self.temporaryFolder("wildcard")
        defer { try? FileManager.default.removeItem(at: wildcard) }
        let run = try await WopiProcess.run(["serve", "--host", "0.0.0.0", "--port", String(taken.port), "--data", wildcard.path], timeout: 60)
        let notices = run.stdout.split(separator: "\n").filter { $0.contains("--public-url") }
        #expect(notices == ["Links need --public-url (or WOPI_PUBLIC_URL): bound to 0.0.0.0, the host cannot tell the address clients reach it at"],
                "\(run.stdout)")
        #expect(!run.stdout.contains("0.0.0.0:"), "a link with the bind address: \(run.stdout)")
        #expect(run.stdout.contains("Created the demo user"), "\(run.stdout)")
        // Nor is the bind address recorded for the other commands' links.
        let sample = try #require(run.stdout.firstMatch(of: /\.docx +id ([0-9a-f]{32})/)?.1, "\(run.stdout)")
        let token = try await WopiProcess.run(["token", "--user", "demo", "--file", String(sample), "--data", wildcard.path])
        #expect(token.exitCode == 0, "\(token.stderr)")
        #expect(token.stdout.contains("\"wopi_src\":\"http://127.0.0.1:8080/wopi/files/\(sample)\""), "\(token.stdout)")
    }

    @Test("SIGTERM stops a PostgreSQL host within 2 s while its pool is still connecting to a database that does not answer",
          .timeLimit(.minutes(5)))
    func stopsWithTheDatabaseGone() async throws {
        let postgres = try PostgresTestServer.startPrivate()
        defer { postgres.shutDown() }
        let database = try postgres.makeDatabase()
        let data = Self.temporaryFolder("stop")
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try WopiServer.freePort()
        let server = try WopiServer.launch(["--host", "127.0.0.1", "--port", String(port), "--data", data.path, "--database", database])
        defer { server.stop() }
        try await server.waitUntilListening(port: port)
        #expect(try await RawHTTPConnection.request(port: port, "GET", "/health/ready").status == 200)

        // The database's host goes away: its port now belongs to a listener that never accepts. With one connection
        // queued there, the kernel drops every further SYN, so the pool's reconnects hang as they would on a
        // vanished address, until their connect timeout (10 s).
        postgres.stopServer()
        let silent = try LocalPort.listener(port: postgres.port, backlog: 0)
        defer { close(silent.descriptor) }
        let queued = try LocalPort.connection(to: silent.port)
        defer { close(queued) }
        // The pool reconnects by itself, unless it is backing off after the refusals while the server stopped:
        // a request makes it connect now. (The request itself hangs until the host gives up on the database.)
        let request = Task { _ = try? await RawHTTPConnection.request(port: port, "GET", "/health/ready") }
        defer { request.cancel() }
        try await offPool {
            try LoopbackConnectTests.waitUntil("the host's pool is connecting") { LoopbackConnectTests.synSent(to: postgres.port) }
        }

        let start = ContinuousClock.now
        #expect(server.signal(SIGTERM))
        let status = try await server.waitForExit(timeout: 30)
        let took = ContinuousClock.now - start
        #expect(status == 0, "\(server.log)")
        // The host waits at most 1 s for the pool; before, it waited out the driver's 10 s connect timeout. The bound
        // tells the two apart with room for a debug build in a busy suite; test-container.sh holds a stop to 2 s.
        #expect(took < .seconds(5), "SIGTERM took \(took) to stop the host")
    }
}
#endif
