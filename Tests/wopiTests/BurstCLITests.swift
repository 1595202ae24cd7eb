import Foundation
import TestSupport
import Testing

/// One user's burst against `wopi serve`, on SQLite and on PostgreSQL: four times as many parallel requests as
/// the database has connections, on each family of write paths (WOPI writes, web front posts, the OAuth token
/// endpoint, documents from templates). Every request gets an answer a client can act on, `/health/live` answers
/// within a second throughout, and names that race are all given, each a different one within 255 bytes.
@Suite("One user's burst is answered, and the host stays alive", .serialized)
struct BurstCLITests {
    /// Parallel requests in a burst: four times the 8 connections of a host's database (SQLite's per-request
    /// readers, PostgreSQL's pool).
    static let burst = 32
    /// How long `/health/live` may take while the burst runs.
    static let liveBound = 1
    /// How long one request of the burst may wait for its answer: an answer that never comes fails the test.
    static let answerBound = 60
    static let password = "burst-password-1"
    static let clientID = "office-burst"
    static let clientSecret = "office-burst-secret-\(UUID().uuidString)"

    enum Storage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }
    }

    /// A `wopi serve` on `storage` with alice, her document `Plan.docx`, a template and a token for the document.
    final class Host: @unchecked Sendable {
        let work: URL
        let storageArguments: [String]
        let documentID: String
        let templateID: String
        let token: String
        let server: WopiServer

        init(_ storage: Storage, templateName: String = "Letter.dotx", extraArguments: [String] = []) async throws {
            work = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-burst-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let data = work.appendingPathComponent("data")
            let storageArguments: [String]
            switch storage {
            case .sqlite:
                storageArguments = []
            case .postgres:
                let database = try await offPool { try PostgresTestServer.shared().makeDatabase() }
                storageArguments = ["--database", database, "--blobs", work.appendingPathComponent("blobs").path]
            }
            self.storageArguments = storageArguments
            let cli = { (arguments: [String]) async throws -> String in
                let result = try await WopiProcess.run(arguments + ["--data", data.path] + storageArguments, timeout: 60)
                try #require(result.exitCode == 0, "wopi \(arguments.joined(separator: " ")): \(result.stderr)")
                return result.stdout
            }
            func id(_ output: String) throws -> String {
                try #require((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["id"] as? String, "\(output)")
            }
            _ = try await cli(["users", "add", "alice", "--password", BurstCLITests.password])
            let plan = work.appendingPathComponent("Plan.docx")
            try Data("the plan\n".utf8).write(to: plan)
            documentID = try id(try await cli(["files", "add", plan.path, "--owner", "alice"]))
            let template = work.appendingPathComponent(templateName)
            try Data("a template".utf8).write(to: template)
            templateID = try id(try await cli(["files", "add", template.path, "--owner", "alice"]))
            let minted = try await cli(["token", "--user", "alice", "--file", documentID])
            token = try #require((try JSONSerialization.jsonObject(with: Data(minted.utf8)) as? [String: Any])?["access_token"] as? String)
            server = try await WopiServer.start(data: data, extraArguments: storageArguments + [
                "--office-client-id", BurstCLITests.clientID, "--office-client-secret", BurstCLITests.clientSecret,
            ] + extraArguments)
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }

        /// A signed-in web session of alice's and its form token.
        func webSession() async throws -> (cookie: String, csrf: String) {
            let session = try #require(try await UsersSessionsCLITests.signIn(server, password: BurstCLITests.password), "sign-in refused")
            let home = try await UsersSessionsCLITests.home(server, session: session)
            let field = try #require(home.range(of: "name=\"csrf\" value=\""), "no form on the home page")
            return (session, String(home[field.upperBound...].prefix { $0 != "\"" }))
        }
    }

    /// One request of a burst.
    struct Request: Sendable {
        var method = "POST"
        var target: String
        var headers: [String] = []
        var body = Data()
    }

    /// What a burst brought: each request's answer (or why it got none), and the slowest `/health/live` meanwhile.
    struct Outcome: Sendable {
        var answers: [Result<RawHTTPConnection.Response, BurstFailure>]
        var probes: Int
        var slowestProbe: Double
        var failedProbes: [String]

        var responses: [RawHTTPConnection.Response] { answers.compactMap { try? $0.get() } }
    }

    struct BurstFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends the requests all at once, each on a connection and a thread of its own, while another thread asks
    /// `/health/live` one request after the other, each allowed ``liveBound`` seconds; then asks it once more.
    static func fire(_ requests: [Request], at server: WopiServer) async -> Outcome {
        let probing = ProbeLog()
        let prober = Task { await onThread { while !probing.isStopped { probing.record(probe(server)) } } }
        let answers = await withTaskGroup(of: (Int, Result<RawHTTPConnection.Response, BurstFailure>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    let answer = await onThread {
                        Result {
                            let connection = try RawHTTPConnection(port: server.port, timeout: answerBound)
                            connection.write(RawHTTPConnection.head(request.method, request.target, request.headers,
                                                                    contentLength: request.body.count) + request.body)
                            guard let response = connection.readResponse() else {
                                throw BurstFailure(description: "no answer to \(request.method) \(request.target.prefix(80)) within \(answerBound) s")
                            }
                            return response
                        }.mapError { $0 as? BurstFailure ?? BurstFailure(description: "\(request.method) \(request.target.prefix(80)): \($0)") }
                    }
                    return (index, answer)
                }
            }
            var answers = [Result<RawHTTPConnection.Response, BurstFailure>?](repeating: nil, count: requests.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers.map { $0! }
        }
        probing.stop()
        await prober.value
        probing.record(await onThread { probe(server) })
        return Outcome(answers: answers, probes: probing.count, slowestProbe: probing.slowest, failedProbes: probing.failures)
    }

    /// One `GET /health/live`: its time in seconds, or why it failed.
    static func probe(_ server: WopiServer) -> Result<Double, BurstFailure> {
        let started = Date()
        do {
            let connection = try RawHTTPConnection(port: server.port, timeout: liveBound)
            connection.write(RawHTTPConnection.head("GET", "/health/live", [], contentLength: 0))
            guard let response = connection.readResponse() else {
                return .failure(BurstFailure(description: "GET /health/live: no answer within \(liveBound) s"))
            }
            guard response.status == 200 else { return .failure(BurstFailure(description: "GET /health/live: \(response)")) }
            return .success(Date().timeIntervalSince(started))
        } catch {
            return .failure(BurstFailure(description: "GET /health/live: \(error)"))
        }
    }

    /// The prober's findings, shared with the test's task.
    final class ProbeLog: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private(set) var count = 0
        private(set) var slowest = 0.0
        private(set) var failures: [String] = []

        var isStopped: Bool { lock.withLock { stopped } }

        func record(_ probe: Result<Double, BurstFailure>) {
            lock.withLock {
                count += 1
                switch probe {
                case .success(let seconds): slowest = max(slowest, seconds)
                case .failure(let failure): failures.append(failure.description)
                }
            }
        }

        /// Tells the prober to stop after the probe it is sending.
        func stop() {
            lock.withLock { stopped = true }
        }
    }

    /// Whether `response` is an answer a client can act on: success, a redirect, a refusal, or an overload or outage
    /// that says when to come back.
    static func isActionable(_ response: RawHTTPConnection.Response, _ statuses: Set<Int>) -> Bool {
        if statuses.contains(response.status) { return true }
        return [429, 503].contains(response.status) && Int(response.header("Retry-After") ?? "").map { $0 > 0 } == true
    }

    /// The checks every burst shares: every request answered as `statuses` allow, the host alive throughout.
    static func expectAnswered(_ outcome: Outcome, _ statuses: Set<Int>, _ server: WopiServer, sourceLocation: SourceLocation = #_sourceLocation) {
        for answer in outcome.answers {
            switch answer {
            case .success(let response):
                #expect(isActionable(response, statuses), "an answer a client cannot act on: \(response)", sourceLocation: sourceLocation)
            case .failure(let failure):
                Issue.record("\(failure)\n\(server.log.suffix(2000))", sourceLocation: sourceLocation)
            }
        }
        #expect(outcome.failedProbes.isEmpty, "\(outcome.failedProbes.prefix(3))", sourceLocation: sourceLocation)
        #expect(outcome.probes >= 1 && outcome.slowestProbe <= Double(liveBound),
                "the slowest of \(outcome.probes) /health/live took \(outcome.slowestProbe) s", sourceLocation: sourceLocation)
    }

    // MARK: The bursts

    @Test("WOPI writes: Lock, Unlock, PutFile and PutRelativeFile at once on one file, one token", .timeLimit(.minutes(5)),
          arguments: Storage.allCases)
    func wopiWrites(_ storage: Storage) async throws {
        let host = try await Host(storage)
        defer { host.stop() }
        let path = "/wopi/files/\(host.documentID)"
        let query = "access_token=\(host.token)"
        let requests = (0..<Self.burst).map { index -> Request in
            switch index % 4 {
            case 0: Request(target: "\(path)?\(query)", headers: ["X-WOPI-Override: LOCK", "X-WOPI-Lock: burst-\(index % 3)"])
            case 1: Request(target: "\(path)?\(query)", headers: ["X-WOPI-Override: UNLOCK", "X-WOPI-Lock: burst-\(index % 3)"])
            case 2: Request(target: "\(path)/contents?\(query)", headers: ["X-WOPI-Override: PUT", "X-WOPI-Lock: burst-\(index % 3)"],
                            body: Data("save \(index)\n".utf8))
            default: Request(target: "\(path)?\(query)", headers: ["X-WOPI-Override: PUT_RELATIVE", "X-WOPI-SuggestedTarget: Burst.docx",
                                                                   "X-WOPI-Size: 6"], body: Data("copy \(index % 10)".utf8.prefix(6)))
            }
        }
        let outcome = await Self.fire(requests, at: host.server)
        Self.expectAnswered(outcome, [200, 409], host.server)
        // Every PutRelativeFile got a file of its own, however the names raced.
        let created = zip(requests, outcome.answers).filter { $0.0.headers.contains("X-WOPI-Override: PUT_RELATIVE") }.compactMap { try? $0.1.get() }
        #expect(created.count == Self.burst / 4 && created.allSatisfy { $0.status == 200 }, "\(created)")
        let names = created.compactMap { response in
            (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["Name"] as? String
        }
        #expect(Set(names).count == Self.burst / 4, "\(names)")
    }

    @Test("web front posts: uploads of one name at once from one session and one form token", .timeLimit(.minutes(5)),
          arguments: Storage.allCases)
    func webFrontPosts(_ storage: Storage) async throws {
        let host = try await Host(storage)
        defer { host.stop() }
        let (cookie, csrf) = try await host.webSession()
        let boundary = "burst-\(UUID().uuidString)"
        let body = Data("""
            --\(boundary)\r
            Content-Disposition: form-data; name="csrf"\r
            \r
            \(csrf)\r
            --\(boundary)\r
            Content-Disposition: form-data; name="files"; filename="Notes.txt"\r
            Content-Type: text/plain\r
            \r
            notes\r
            --\(boundary)--\r

            """.utf8)
        let home = try await UsersSessionsCLITests.home(host.server, session: cookie)
        let root = try #require(home.firstMatch(of: /action="\/folders\/([0-9a-f]{32})\/upload"/)?.1, "no upload form")
        let request = Request(target: "/folders/\(root)/upload", headers: [
            "Cookie: wopi_session=\(cookie)", "Content-Type: multipart/form-data; boundary=\(boundary)",
        ], body: body)
        let outcome = await Self.fire(Array(repeating: request, count: Self.burst), at: host.server)
        Self.expectAnswered(outcome, [303], host.server)
        #expect(outcome.responses.allSatisfy { $0.status == 303 }, "every upload is stored: \(outcome.responses.filter { $0.status != 303 }.prefix(2))")
        let listed = try await UsersSessionsCLITests.home(host.server, session: cookie)
        let notes = listed.matches(of: /data-name="(Notes(?: \(\d+\))?\.txt)"/).map { String($0.1) }
        #expect(Set(notes).count == Self.burst, "each upload under a name of its own: \(notes.sorted())")
    }

    @Test("the OAuth token endpoint: refused grants at once from one client", .timeLimit(.minutes(5)), arguments: Storage.allCases)
    func tokenEndpoint(_ storage: Storage) async throws {
        let host = try await Host(storage)
        defer { host.stop() }
        let requests = (0..<Self.burst).map { index in
            Request(target: "/oauth2/token", headers: ["Content-Type: application/x-www-form-urlencoded"],
                    body: Data("grant_type=authorization_code&code=no-such-code-\(index)&client_id=\(Self.clientID)&client_secret=\(Self.clientSecret)".utf8))
        }
        let outcome = await Self.fire(requests, at: host.server)
        Self.expectAnswered(outcome, [400], host.server)
        #expect(outcome.responses.contains { $0.status == 400 && $0.text.contains("invalid_grant") }, "\(outcome.responses.prefix(2))")
    }

    @Test("documents from templates: new-from-template posts at once, every one a document with a name of its own within 255 bytes",
          .timeLimit(.minutes(5)), arguments: Storage.allCases)
    func templateCreation(_ storage: Storage) async throws {
        // A 250-character stem: the template's name and its documents' are at the limit, so each " (n)" must shorten the stem.
        let stem = String(repeating: "L", count: 250)
        try await StaticFileServer.serve(["collabora/hosting/discovery": Data(BrowserEditorCLITests.collaboraDiscovery.utf8)]) { base in
            let host = try await Host(storage, templateName: "\(stem).dotx",
                                      extraArguments: ["--wopi-client", "collabora=\(base.absoluteString)/collabora/hosting/discovery"])
            defer { host.stop() }
            let (cookie, csrf) = try await host.webSession()
            let request = Request(target: "/files/\(host.templateID)/new-from-template", headers: [
                "Cookie: wopi_session=\(cookie)", "Content-Type: application/x-www-form-urlencoded",
            ], body: Data("csrf=\(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf)".utf8))
            let outcome = await Self.fire(Array(repeating: request, count: Self.burst), at: host.server)
            Self.expectAnswered(outcome, [303], host.server)
            let opened = outcome.responses.compactMap { $0.header("Location")?.firstMatch(of: /\/open\/([0-9a-f]{32})/).map { String($0.1) } }
            #expect(opened.count == Self.burst && Set(opened).count == Self.burst, "every post made a document of its own: \(opened.count)")
            let listed = try await UsersSessionsCLITests.home(host.server, session: cookie)
            let names = listed.matches(of: /data-name="(L+(?: \(\d+\))?\.docx)"/).map { String($0.1) }
            #expect(Set(names).count == Self.burst, "\(names.count) names")
            #expect(names.allSatisfy { $0.utf8.count <= 255 }, "\(names.map(\.utf8.count).max() ?? 0) bytes")
            #expect(names.contains("\(stem).docx") && names.contains("\(stem.prefix(246)) (1).docx"))
        }
    }
}

/// Runs blocking `work` on a thread of its own (not one of Dispatch's pool, which grows slowly under blocked
/// workers) and waits for it without holding a thread of Swift's cooperative pool.
func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
