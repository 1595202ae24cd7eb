import Foundation
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// Refused proofs and tokens in the metrics, by reason, over HTTP.
@Suite struct ProofRefusalMetricsTests {
    @Test("a missing proof, a stale proof and an expired token are each counted under their reason")
    func refusalsByReason() async throws {
        let office = try ProofKeyHTTPTests.Office()
        defer { try? FileManager.default.removeItem(at: office.discovery) }
        let cache = try await ProofKeyCache(source: .file(office.discovery), minimumRefreshInterval: 60)
        let metrics = HostMetrics()
        try await TestHost.run(proofKeys: cache, monitor: HostMonitor(metrics: metrics)) { host in
            let document = try await host.document("counted.docx", Data("counted".utf8))
            let path = TestHost.filePath(document.id)
            expectStatus(try await host.send(.GET, path, token: document.token), 500, "no proof headers")
            let stale = try office.headers(token: document.token, path: path, at: host.clock.now().addingTimeInterval(-21 * 60)) // the host's clock stands still
            expectStatus(try await host.send(.GET, path, token: document.token, headers: stale), 500, "stale proof")
            expectStatus(try await host.send(.GET, path, token: document.token, headers: try office.headers(token: document.token, path: path)), 200)
        }
        let text = metrics.exposition()
        #expect(text.contains(#"wopi_proofs_refused_total{reason="missing_timestamp"} 1"#), "\(text)")
        #expect(text.contains(#"wopi_proofs_refused_total{reason="timestamp_expired"} 1"#), "\(text)")
        #expect(text.contains(#"wopi_requests_total{operation="CheckFileInfo",status="500"} 2"#), "\(text)")
        #expect(text.contains(#"wopi_requests_total{operation="CheckFileInfo",status="200"} 1"#), "\(text)")
    }
}
