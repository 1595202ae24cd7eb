import Foundation
import Testing
import WOPICore

/// Microsoft's eight proof-key vectors: six valid requests (two per accepted combination) and two invalid ones.
@Suite("Proof key vectors (vectors.json)")
struct ProofKeyVectorTests {
    let vectors: ProofKeyVectors
    let verifier: ProofKeyVerifier

    init() throws {
        vectors = try ProofKeyVectors.load()
        let document = try DiscoveryDocument(xml: vectors.discoveryXML)
        verifier = ProofKeyVerifier(keys: try #require(document.proofKeys))
    }

    @Test("the file holds eight cases, six valid and two invalid")
    func caseCounts() {
        #expect(vectors.cases.count == 8)
        #expect(vectors.cases.filter(\.expectedValid).count == 6)
    }

    @Test("every case verifies as expected, by the combination its name promises")
    func everyCase() throws {
        for vector in vectors.cases {
            // The vectors are from 2015: check them at the moment they were signed.
            let signedAt = ProofKeyTimestamp(ticks: vector.timestamp).date
            let result = verifier.verify(
                accessToken: vector.accessToken,
                url: vector.url,
                timestampHeader: String(vector.timestamp),
                proofHeader: vector.proof,
                proofOldHeader: vector.proofOld,
                now: signedAt.addingTimeInterval(5)
            )
            #expect(result.isValid == vector.expectedValid, "\(vector.name): \(result)")
            let expected: ProofKeyVerification =
                if vector.name.hasPrefix("test_proof_current_key") {
                    .valid(.proofWithCurrentKey)
                } else if vector.name.hasPrefix("test_old_proof_current_key") {
                    .valid(.proofOldWithCurrentKey)
                } else if vector.name.hasPrefix("test_proof_old_key") {
                    .valid(.proofWithOldKey)
                } else {
                    .invalid(.signatureMismatch)
                }
            #expect(result == expected, "\(vector.name)")
        }
    }

    @Test("a valid vector is refused with today's clock: its timestamp is years old")
    func vectorsAreExpiredToday() throws {
        let vector = try vectors.case(named: "test_proof_current_key1")
        let result = verifier.verify(
            accessToken: vector.accessToken,
            url: vector.url,
            timestampHeader: String(vector.timestamp),
            proofHeader: vector.proof,
            proofOldHeader: vector.proofOld
        )
        guard case .invalid(.timestampExpired(let age)) = result else {
            Issue.record("expected an expired timestamp, got \(result)")
            return
        }
        #expect(age > 365 * 24 * 3600)
    }

    @Test("a valid vector stops verifying when the URL's query, token or timestamp changes")
    func tamperedVector() throws {
        let vector = try vectors.case(named: "test_proof_current_key1")
        let now = ProofKeyTimestamp(ticks: vector.timestamp).date
        let tampered: [(token: String, url: String, timestamp: Int64)] = [
            (vector.accessToken + "x", vector.url, vector.timestamp),
            (vector.accessToken, vector.url + "&x=1", vector.timestamp),
            (vector.accessToken, vector.url.replacingOccurrences(of: "contoso.com", with: "contoso.org"), vector.timestamp),
            (vector.accessToken, vector.url, vector.timestamp - 1),
        ]
        for change in tampered {
            let result = verifier.verify(
                accessToken: change.token,
                url: change.url,
                timestampHeader: String(change.timestamp),
                proofHeader: vector.proof,
                proofOldHeader: vector.proofOld,
                now: now
            )
            #expect(result == .invalid(.signatureMismatch))
        }
    }

    @Test("the URL is compared upper-cased, so its letter case does not matter")
    func urlCaseIsIrrelevant() throws {
        let vector = try vectors.case(named: "test_proof_current_key2")
        let result = verifier.verify(
            accessToken: vector.accessToken,
            url: vector.url.lowercased(),
            timestampHeader: String(vector.timestamp),
            proofHeader: vector.proof,
            proofOldHeader: vector.proofOld,
            now: ProofKeyTimestamp(ticks: vector.timestamp).date
        )
        #expect(result == .valid(.proofWithCurrentKey))
    }

    @Test("a key given as a CSP blob equals the same key given as modulus and exponent")
    func cspBlobMatchesModulus() throws {
        let discovery = vectors.discovery
        let fromBlob = try ProofKey(base64CSPBlob: discovery.value)
        let fromPrimitives = try ProofKey(base64Modulus: discovery.modulus, base64Exponent: discovery.exponent)
        #expect(fromBlob == fromPrimitives)
        #expect(fromBlob.keySizeInBits == 2048)
        #expect(fromPrimitives.base64CSPBlob == discovery.value)
        let oldFromBlob = try ProofKey(base64CSPBlob: discovery.oldvalue)
        #expect(oldFromBlob == (try ProofKey(base64Modulus: discovery.oldmodulus, base64Exponent: discovery.oldexponent)))
        #expect(oldFromBlob != fromBlob)
    }
}
