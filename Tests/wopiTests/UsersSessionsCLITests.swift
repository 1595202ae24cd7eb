import Foundation
import Testing

/// `wopi users sessions` and `wopi users sign-out` through the real binary, beside a running `wopi serve`
/// on the same data folder that a browser (raw HTTP) signed in to.
@Suite("wopi users sessions and sign-out")
struct UsersSessionsCLITests {
    static let userAgent = "SessionsCLITest/2.0 (raw HTTP)"

    func run(_ arguments: [String], _ setup: OperationsCLITests.Setup) async throws -> WopiProcess.Result {
        try await WopiProcess.run(arguments + ["--data", setup.data.path])
    }

    /// The value of the cookie `name` a response sets, if any.
    static func setCookie(_ name: String, in response: RawHTTPConnection.Response) -> String? {
        response.headers.filter { $0.0.caseInsensitiveCompare("Set-Cookie") == .orderedSame }
            .compactMap { header -> String? in
                let pair = header.1.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return pair.count == 2 && pair[0] == name ? String(pair[1]) : nil
            }.first
    }

    /// Signs `user` in to the web front as a browser would: the form, its CSRF cookie, the post. Returns the session
    /// cookie, or `nil` when the host refused the password.
    static func signIn(_ server: WopiServer, user: String = "alice", password: String = OperationsCLITests.password) async throws -> String? {
        let form = try await RawHTTPConnection.request(port: server.port, "GET", "/")
        let csrfCookie = try #require(setCookie("wopi_web_csrf", in: form), "\(form)")
        let field = try #require(form.text.range(of: "name=\"csrf\" value=\""))
        let csrf = String(form.text[field.upperBound...].prefix { $0 != "\"" })
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        let body = Data("csrf=\(escape(csrf))&username=\(escape(user))&password=\(escape(password))".utf8)
        let signedIn = try await RawHTTPConnection.request(port: server.port, "POST", "/signin", [
            "Cookie: wopi_web_csrf=\(csrfCookie)", "Content-Type: application/x-www-form-urlencoded", "User-Agent: \(userAgent)",
        ], body: body)
        guard signedIn.status == 303 else { return nil }
        let session: String = try #require(setCookie("wopi_session", in: signedIn), "\(signedIn)")
        return session
    }

    static func home(_ server: WopiServer, session: String) async throws -> String {
        try await RawHTTPConnection.request(port: server.port, "GET", "/", ["Cookie: wopi_session=\(session)"]).text
    }

    @Test("Sessions are listed without their secret, ended by sign-out on the running host, and bad input exits 2", .timeLimit(.minutes(5)))
    func listAndSignOut() async throws {
        let setup = try await OperationsCLITests.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }

        let none = try await run(["users", "sessions", "alice"], setup)
        #expect(none.exitCode == 0, "\(none.stderr)")
        #expect(none.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        let first = try #require(try await Self.signIn(server))
        let second = try #require(try await Self.signIn(server))
        #expect(try await Self.home(server, session: first).contains("id=\"listing\""))

        let listed = try await run(["users", "sessions", "alice"], setup)
        #expect(listed.exitCode == 0, "\(listed.stderr)")
        let rows = try OperationsCLITests.jsonArray(listed.stdout)
        #expect(rows.count == 2)
        for row in rows {
            #expect(Set(row.keys) == ["created", "lastSeen", "expires", "userAgent"])
            #expect(row["userAgent"] as? String == Self.userAgent)
            let formatter = ISO8601DateFormatter()
            let created = try #require((row["created"] as? String).flatMap(formatter.date(from:)))
            let expires = try #require((row["expires"] as? String).flatMap(formatter.date(from:)))
            #expect(expires.timeIntervalSince(created) == 8 * 3600)
            #expect((row["lastSeen"] as? String).flatMap(formatter.date(from:)) != nil)
        }
        #expect(!listed.stdout.contains(first) && !listed.stdout.contains(second), "never a session secret")

        // Bad input: one line naming the problem, exit 2, nothing ended.
        for arguments in [["users", "sessions", "nobody"], ["users", "sign-out", "nobody"]] {
            let refused = try await run(arguments, setup)
            #expect(refused.exitCode == 2, "\(arguments): exit \(refused.exitCode)")
            #expect(refused.stderrLines.count == 1 && refused.stderr.contains("nobody"), "\(refused.stderr)")
        }
        let missing = try await run(["users", "sign-out"], setup)
        #expect(missing.exitCode == 2 && missing.stderr.contains("name"), "\(missing.stderr)")
        #expect(try await Self.home(server, session: second).contains("id=\"listing\""), "still signed in")

        let ended = try await run(["users", "sign-out", "alice"], setup)
        #expect(ended.exitCode == 0, "\(ended.stderr)")
        let result = try OperationsCLITests.json(ended.stdout)
        #expect(result["user"] as? String == "alice" && result["ended"] as? Int == 2)

        // The running host sees it at once: both browsers get the sign-in form.
        for session in [first, second] {
            let page = try await Self.home(server, session: session)
            #expect(page.contains("id=\"signin\"") && !page.contains("id=\"listing\""))
        }
        #expect(try await run(["users", "sessions", "alice"], setup).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let again = try OperationsCLITests.json(try await run(["users", "sign-out", "alice"], setup).stdout)
        #expect(again["ended"] as? Int == 0)

        let audit = try await run(["audit", "list", "--event", "sessions.ended"], setup)
        #expect(audit.exitCode == 0, "\(audit.stderr)")
        let events = audit.stdout.split(separator: "\n").compactMap { try? OperationsCLITests.json(String($0)) }
        #expect(events.first?["user"] as? String == "alice" && events.first?["count"] as? String == "2" && events.first?["via"] as? String == "cli")
    }

    @Test("A new password signs the user out of every browser; the old one no longer signs in", .timeLimit(.minutes(5)))
    func newPassword() async throws {
        let setup = try await OperationsCLITests.makeSetup()
        defer { setup.remove() }
        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }
        let session = try #require(try await Self.signIn(server))

        let short = try await run(["users", "passwd", "alice", "--password", "short"], setup)
        #expect(short.exitCode == 2 && short.stderr.contains("8 characters"), "\(short.stderr)")
        let unknown = try await run(["users", "passwd", "nobody", "--password", "new-password-99"], setup)
        #expect(unknown.exitCode == 2 && unknown.stderrLines.count == 1 && unknown.stderr.contains("nobody"), "\(unknown.stderr)")
        #expect(try await Self.home(server, session: session).contains("id=\"listing\""), "bad input changed nothing")

        let changed = try await run(["users", "passwd", "alice", "--password", "new-password-99"], setup)
        #expect(changed.exitCode == 0, "\(changed.stderr)")
        let result = try OperationsCLITests.json(changed.stdout)
        #expect(result["user"] as? String == "alice" && result["sessionsEnded"] as? Int == 1)
        #expect(try await Self.home(server, session: session).contains("id=\"signin\""), "the old session ended")
        #expect(try await Self.signIn(server) == nil, "the old password is refused")
        let again = try #require(try await Self.signIn(server, password: "new-password-99"))
        #expect(try await Self.home(server, session: again).contains("id=\"listing\""))
    }
}
