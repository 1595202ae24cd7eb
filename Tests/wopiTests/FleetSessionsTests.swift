import Foundation
import Testing

/// Web sessions across a fleet: two `wopi serve` processes on one real PostgreSQL database. A session
/// begun on one host is valid on the other, and ending it anywhere (a sign-out on either host,
/// `wopi users sign-out`) ends it on both.
@Suite("Two hosts on PostgreSQL: one set of web sessions", .serialized)
struct FleetSessionsTests {
    typealias Fleet = FleetAuditTests.Fleet

    /// The session cookie a successful web sign-in on `host` sets (raw HTTP: the 303 and its cookie as sent).
    static func signIn(_ host: WopiServer) async throws -> String {
        try #require(try await UsersSessionsCLITests.signIn(host, password: FleetAuditTests.password), "sign-in on \(host.baseURL) refused")
    }

    static func home(_ host: WopiServer, session: String) async throws -> String {
        try await UsersSessionsCLITests.home(host, session: session)
    }

    @Test("a session works on both hosts; signing out on one, or wopi users sign-out, ends it on both", .timeLimit(.minutes(5)))
    func sessionsAcrossHosts() async throws {
        let fleet = try await Fleet()
        defer { fleet.stop() }
        _ = try await fleet.cli(["users", "add", "alice", "--password", FleetAuditTests.password])
        let (first, second) = (fleet.hosts[0], fleet.hosts[1])

        let session = try await Self.signIn(first)
        let page = try await Self.home(second, session: session)
        #expect(page.contains("id=\"listing\""), "the other host knows the session")
        let field = try #require(page.range(of: "name=\"csrf\" value=\""))
        let csrf = String(page[field.upperBound...].prefix { $0 != "\"" })
        let signOut = try await RawHTTPConnection.request(port: second.port, "POST", "/signout", [
            "Cookie: wopi_session=\(session)", "Content-Type: application/x-www-form-urlencoded",
        ], body: Data("csrf=\(csrf)".utf8))
        #expect(signOut.status == 303, "\(signOut)")
        #expect(try await Self.home(first, session: session).contains("id=\"signin\""), "signed out on the first host too")

        let again = try await Self.signIn(second)
        let listed = try await WopiProcess.run(["users", "sessions", "alice"] + fleet.storageArguments, timeout: 60)
        #expect(listed.exitCode == 0, "\(listed.stderr)")
        #expect(try OperationsCLITests.jsonArray(listed.stdout).count == 1)
        #expect(try await fleet.cli(["users", "sign-out", "alice"])["ended"] as? Int == 1)
        for host in fleet.hosts {
            #expect(try await Self.home(host, session: again).contains("id=\"signin\""), "\(host.baseURL)")
        }

        let events = try await fleet.auditList(until: { events in events.contains { $0["event"] as? String == "signout" } })
        #expect(events.contains { $0["event"] as? String == "signout" && $0["user"] as? String == "alice" })
        #expect(events.contains { $0["event"] as? String == "sessions.ended" && $0["count"] as? String == "1" })
    }
}
