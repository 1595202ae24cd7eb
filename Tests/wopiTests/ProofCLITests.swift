import Foundation
import Testing

/// `wopi proof keygen | sign | verify` as an operator uses them, through the real binary.
@Suite struct ProofCLITests {
    @Test("keygen writes a key and discovery; sign's headers verify; a tampered URL does not; bad input exits 2")
    func signAndVerify() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-proof-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("office.pem").path
        let discovery = folder.appendingPathComponent("discovery.xml").path

        let keygen = try await WopiProcess.run(["proof", "keygen", "--private-key", key, "--discovery", discovery])
        #expect(keygen.exitCode == 0, "\(keygen.stderr)")
        #expect(try String(contentsOfFile: discovery, encoding: .utf8).contains("proof-key"))
        let again = try await WopiProcess.run(["proof", "keygen", "--private-key", key, "--discovery", discovery])
        #expect(again.exitCode == 2, "keygen must not overwrite a key")

        let url = "https://wopi.contoso.com/wopi/files/abc?access_token=T0KEN"
        let sign = try await WopiProcess.run(["proof", "sign", "--private-key", key, "--access-token", "T0KEN", "--url", url])
        #expect(sign.exitCode == 0, "\(sign.stderr)")
        var headers: [String: String] = [:]
        for line in sign.stdout.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { headers[parts[0]] = parts[1] }
        }
        let timestamp = try #require(headers["X-WOPI-TimeStamp"], "sign printed: \(sign.stdout)")
        let proof = try #require(headers["X-WOPI-Proof"])

        let verify = { (url: String) in
            try await WopiProcess.run(["proof", "verify", "--discovery", discovery, "--access-token", "T0KEN", "--url", url,
                                 "--timestamp", timestamp, "--proof", proof, "--proof-old", headers["X-WOPI-ProofOld"] ?? proof])
        }
        let valid = try await verify(url)
        #expect(valid.exitCode == 0, "\(valid.stdout)\(valid.stderr)")
        #expect(valid.stdout.contains("valid"))
        let tampered = try await verify(url.replacingOccurrences(of: "abc", with: "abd"))
        #expect(tampered.exitCode == 1)
        #expect(tampered.stdout.contains("invalid"))

        let bad = try await WopiProcess.run(["proof", "verify", "--discovery", discovery, "--access-token", "T", "--url", url,
                                       "--timestamp", "not-a-number", "--proof", proof])
        #expect(bad.exitCode == 2)
        #expect(bad.stderrLines.count == 1, "one line on stderr: \(bad.stderr)")
    }
}
