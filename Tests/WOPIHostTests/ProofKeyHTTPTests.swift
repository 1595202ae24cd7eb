import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// Proof keys over real HTTP: the host checks `X-WOPI-Proof` on every `/wopi` request when it
/// has a WOPI client's discovery, signed here with a freshly generated key acting as Office.
@Suite("Proof keys over HTTP")
struct ProofKeyHTTPTests {
    /// A client (Office) with its key, and the discovery file the host reads.
    struct Office {
        var signer: ProofKeySigner
        let discovery: URL

        init() throws {
            signer = try ProofKeySigner.generate()
            discovery = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-\(UUID().uuidString).xml")
            try publish()
        }

        /// Writes the current keys where the host reads them.
        func publish() throws {
            try Data(signer.discoveryDocument().xmlString.utf8).write(to: discovery)
        }

        /// The proof headers for `path` as the host's public URL, at `date`.
        func headers(token: String, path: String, at date: Date = Date()) throws -> [(String, String)] {
            let url = "\(TestHost.publicURL)\(path)?access_token=\(TestHost.queryEscaped(token))"
            return try signer.sign(accessToken: token, url: url, at: date).fields.map { ($0.name, $0.value) }
        }
    }

    private func withSignedHost(minimumRefreshInterval: TimeInterval = 60,
                                _ body: (TestHost, Office, ProofKeyCache, _ fileID: String, _ token: String) async throws -> Void) async throws {
        let office = try Office()
        defer { try? FileManager.default.removeItem(at: office.discovery) }
        let cache = try await ProofKeyCache(source: .file(office.discovery), minimumRefreshInterval: minimumRefreshInterval)
        try await TestHost.run(proofKeys: cache) { host in
            let document = try await host.document("proof.docx", Data("proof".utf8))
            try await body(host, office, cache, document.id, document.token)
        }
    }

    @Test("a request signed with the current key is accepted")
    func validProof() async throws {
        try await withSignedHost { host, office, _, id, token in
            let path = TestHost.filePath(id)
            let response = try await host.send(.GET, path, token: token, headers: try office.headers(token: token, path: path))
            expectStatus(response, 200)
        }
    }

    @Test("missing, tampered, re-targeted and stale proofs answer 500 and change nothing")
    func invalidProofs() async throws {
        try await withSignedHost { host, office, _, id, token in
            let path = TestHost.filePath(id)
            expectStatus(try await host.send(.GET, path, token: token), 500, "no proof headers")

            let otherPath = TestHost.filePath(ResourceID.random().rawValue)
            expectStatus(try await host.send(.GET, path, token: token, headers: try office.headers(token: token, path: otherPath)),
                         500, "proof for another URL")

            let stale = try office.headers(token: token, path: path, at: host.clock.now().addingTimeInterval(-21 * 60)) // the host's clock stands still
            expectStatus(try await host.send(.GET, path, token: token, headers: stale), 500, "timestamp older than 20 minutes")

            var tampered = try office.headers(token: token, path: path)
            tampered = tampered.map { $0.0 == ProofKeyHeaders.proofName ? ($0.0, String($0.1.reversed())) : $0 }
            tampered = tampered.filter { $0.0 != ProofKeyHeaders.proofOldName }
            expectStatus(try await host.send(.GET, path, token: token, headers: tampered), 500, "altered signature")

            // A refused PutFile must not write.
            let lockPath = TestHost.filePath(id)
            var lockHeaders = try office.headers(token: token, path: lockPath)
            lockHeaders += [("X-WOPI-Override", "LOCK"), ("X-WOPI-Lock", "L")]
            expectStatus(try await host.send(.POST, lockPath, token: token, headers: lockHeaders), 200)
            let contents = "\(path)/contents"
            expectStatus(try await host.send(.POST, contents, token: token,
                                             headers: [("X-WOPI-Override", "PUT"), ("X-WOPI-Lock", "L")], body: .bytes(Data("evil".utf8))),
                         500, "unsigned PutFile")
            let read = try await host.send(.GET, contents, token: token, headers: try office.headers(token: token, path: contents))
            #expect(read.body == Data("proof".utf8))
        }
    }

    @Test("another spelling of a /wopi path does not skip the check")
    func doubleSlash() async throws {
        try await withSignedHost { host, _, _, id, token in
            for path in ["/" + TestHost.filePath(id), TestHost.filePath(id) + "/", "/" + TestHost.filePath(id) + "/contents"] {
                let response = try await host.send(.GET, path, token: token)
                #expect(response.status == 500, "\(path) answered \(response.status) without a proof")
            }
        }
    }

    @Test("endpoints outside /wopi are not checked")
    func healthIsOpen() async throws {
        try await withSignedHost { host, _, _, _, _ in
            expectStatus(try await host.send(.GET, "/health", token: nil), 200)
        }
    }

    @Test("after Office rotates its keys the host re-reads discovery and accepts the new key")
    func rotation() async throws {
        try await withSignedHost(minimumRefreshInterval: 0) { host, office, cache, id, token in
            var office = office
            let before = await cache.current
            office.signer = try office.signer.rotated()
            try office.publish()
            let path = TestHost.filePath(id)
            // Proof with the new key, ProofOld with the old one: valid through the old key, which triggers a re-read.
            let response = try await host.send(.GET, path, token: token, headers: try office.headers(token: token, path: path))
            expectStatus(response, 200)
            let after = await cache.current
            #expect(after != before)
            #expect(after.current == office.signer.proofKeys.current)
            #expect(after.old == before.current)
        }
    }

    @Test("re-reading discovery is rate-limited")
    func refreshRateLimit() async throws {
        try await withSignedHost(minimumRefreshInterval: 3600) { host, office, cache, id, token in
            var office = office
            let before = await cache.current
            office.signer = try office.signer.rotated()
            try office.publish()
            let path = TestHost.filePath(id)
            expectStatus(try await host.send(.GET, path, token: token, headers: try office.headers(token: token, path: path)), 200,
                         "ProofOld still verifies with the host's current key")
            #expect(await cache.current == before, "no re-read within the interval")
        }
    }
}
