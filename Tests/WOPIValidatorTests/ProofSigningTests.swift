import Foundation
import Testing
import WOPICore
import WOPIHTTPClient
@testable import WOPIValidator

/// The validator signs its requests, and each `<ProofKey>` mutator of the ProofKeys group
/// gives the combination of keys its test case describes, checked with the host's own verifier.
@Suite("Signing the validator's requests with proof keys")
struct ProofSigningTests {
    typealias Keys = (signer: ValidatorProofSigner, verifier: ProofKeyVerifier)

    /// A client key pair (current and old), the signer holding its private halves and the host's verifier for its public halves.
    static func makeKeys() throws -> Keys {
        let pair = try ProofKeySigner.generate(withOldKey: true)
        let signer = try ValidatorProofSigner(currentKeyPEM: pair.currentKeyPEM, oldKeyPEM: pair.oldKeyPEM)
        return (signer, ProofKeyVerifier(keys: pair.proofKeys))
    }

    static let request = TransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:8080/wopi/files/F1?access_token=tok%20en&access_token_ttl=0")!)

    static func verify(_ mutator: RequestMutator?, _ keys: Keys) -> ProofKeyVerification {
        let headers = keys.signer.headers(for: request, mutator: mutator)
        func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        return keys.verifier.verify(accessToken: "tok en", url: request.url.absoluteString, timestampHeader: value("X-WOPI-TimeStamp"),
                                    proofHeader: value("X-WOPI-Proof"), proofOldHeader: value("X-WOPI-ProofOld"))
    }

    static func mutator(current: Bool = false, old: Bool = false, timestamp: String? = nil, relation: String? = nil) -> RequestMutator {
        .proofKey(mutateCurrent: current, mutateOld: old, timestamp: timestamp, keyRelation: relation)
    }

    @Test("unmutated requests carry all three headers and verify with the current key")
    func plain() throws {
        let keys = try Self.makeKeys()
        #expect(keys.signer.hasDistinctOldKey)
        #expect(keys.signer.headers(for: Self.request, mutator: nil).map(\.name) == ["X-WOPI-TimeStamp", "X-WOPI-Proof", "X-WOPI-ProofOld"])
        #expect(Self.verify(nil, keys) == .valid(.proofWithCurrentKey))
    }

    @Test("the accepted combinations verify the way the test cases say")
    func accepted() throws {
        let keys = try Self.makeKeys()
        #expect(Self.verify(Self.mutator(old: true), keys) == .valid(.proofWithCurrentKey))
        #expect(Self.verify(Self.mutator(relation: "Ahead"), keys) == .valid(.proofOldWithCurrentKey))
        #expect(Self.verify(Self.mutator(relation: "Behind"), keys) == .valid(.proofWithOldKey))
    }

    @Test("the refused combinations do not verify")
    func refused() throws {
        let keys = try Self.makeKeys()
        #expect(!Self.verify(Self.mutator(current: true), keys).isValid)
        #expect(!Self.verify(Self.mutator(current: true, old: true), keys).isValid)
        let stale = Self.verify(Self.mutator(timestamp: "2015-08-17T00:00:00Z"), keys)
        var expired = false
        if case .invalid(.timestampExpired) = stale { expired = true }
        #expect(expired, "a 2015 timestamp is refused as too old, not for its signature: \(stale)")
        let stamp = keys.signer.headers(for: Self.request, mutator: Self.mutator(timestamp: "2015-08-17T00:00:00Z"))
            .first { $0.name == "X-WOPI-TimeStamp" }?.value
        #expect(stamp == ProofKeyTimestamp(Date(timeIntervalSince1970: 1_439_769_600)).headerValue)
    }

    @Test("a request without access_token, such as a plain download, is not signed")
    func unsignedWithoutToken() throws {
        let keys = try Self.makeKeys()
        let download = TransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:8080/blob/1")!)
        #expect(keys.signer.headers(for: download, mutator: nil).isEmpty)
    }
}
