import Foundation
import HTTPTypes
import Testing
import WOPICore
@testable import WOPIHost

/// Sign-ins in the metrics and the audit log, over HTTP: by outcome, and never with a password or code.
@Suite struct SignInAuditTests {
    @Test("a failed and a successful sign-in are counted by outcome and audited with the user's name, without password or code")
    func signInsAreCountedAndAudited() async throws {
        let auditPath = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-signin-audit-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: auditPath) }
        let metrics = HostMetrics()
        let fixture = try await SignInFixture.make(monitor: HostMonitor(metrics: metrics, audit: try AuditLog(path: auditPath)))
        let code = try await fixture.serve { http in
            let page = try await http.get(HTTPSession.officeAuthorizeURI())
            let refused = try await http.submit(page, cookie: page.cookie, [("username", "alice"), ("password", "wrong-password-9")])
            #expect(refused.status == .unauthorized)
            return try await http.officeCode().code
        }
        let text = metrics.exposition()
        #expect(text.contains(#"wopi_signins_total{outcome="failed"} 1"#), "\(text)")
        #expect(text.contains(#"wopi_signins_total{outcome="ok"} 1"#), "\(text)")

        let audit = try String(contentsOfFile: auditPath, encoding: .utf8)
        let events = try audit.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let failed = try #require(events.first { $0["event"] as? String == "signin.failed" }, "\(audit)")
        #expect(failed["user"] as? String == "alice")
        #expect((failed["request_id"] as? String)?.isEmpty == false)
        let ok = try #require(events.first { $0["event"] as? String == "signin.ok" }, "\(audit)")
        #expect(ok["user"] as? String == "alice")
        for secret in ["wrong-password-9", SignInFixture.alicePassword, code, SignInFixture.officeSecret] {
            #expect(!audit.contains(secret), "the audit log holds a secret")
        }
    }
}
