import Foundation
import Testing
import WOPICore

/// Sign-then-verify with generated keys: the three accepted combinations, the refused ones,
/// tampering, and the timestamp window.
@Suite("ProofKeyVerifier with generated keys")
struct ProofKeyVerifierTests {
    let url = "https://wopi.example.com/wopi/files/42?access_token=tok-123&access_token_ttl=0"
    let token = "tok-123"
    let signedAt = Date(timeIntervalSince1970: 1_750_000_000)

    func request(token: String? = nil, url: String? = nil, at date: Date? = nil) -> ProofKeyRequest {
        ProofKeyRequest(accessToken: token ?? self.token, url: url ?? self.url, timestamp: ProofKeyTimestamp(date ?? signedAt))
    }

    func verify(
        _ headers: ProofKeyHeaders,
        keys: ProofKeyPair,
        token: String? = nil,
        url: String? = nil,
        now: Date? = nil
    ) -> ProofKeyVerification {
        ProofKeyVerifier(keys: keys).verify(
            accessToken: token ?? self.token,
            url: url ?? self.url,
            timestampHeader: headers.timestamp.headerValue,
            proofHeader: headers.proof,
            proofOldHeader: headers.proofOld,
            now: now ?? signedAt.addingTimeInterval(1)
        )
    }

    @Test("a freshly generated 2048-bit key signs requests its discovery keys verify")
    func signThenVerify() throws {
        let signer = try TestSigners.beforeRotation.get()
        #expect(signer.proofKeys.current.keySizeInBits == 2048)
        #expect(signer.proofKeys.old == nil)
        let headers = try signer.sign(request())
        #expect(headers.timestamp == ProofKeyTimestamp(signedAt))
        #expect(verify(headers, keys: signer.proofKeys) == .valid(.proofWithCurrentKey))
    }

    @Test("signing is PKCS#1 v1.5: deterministic, so the same request gives the same proof")
    func signatureIsDeterministic() throws {
        let signer = try TestSigners.beforeRotation.get()
        #expect(try signer.sign(request()).proof == signer.sign(request()).proof)
        #expect(try signer.sign(request()).proof != signer.sign(request(token: "other")).proof)
    }

    @Test("a host with the keys from before a rotation accepts X-WOPI-ProofOld with its current key")
    func hostBehindRotation() throws {
        let host = try TestSigners.beforeRotation.get().proofKeys
        let client = try TestSigners.afterRotation.get()
        let result = verify(try client.sign(request()), keys: host)
        #expect(result == .valid(.proofOldWithCurrentKey))
        #expect(result.suggestsKeyRefresh)
    }

    @Test("a host with the new keys accepts a client still signing with the old key (X-WOPI-Proof, old key)")
    func clientBehindRotation() throws {
        let host = try TestSigners.afterRotation.get().proofKeys
        let client = try TestSigners.beforeRotation.get()
        let result = verify(try client.sign(request()), keys: host)
        #expect(result == .valid(.proofWithOldKey))
        #expect(result.suggestsKeyRefresh)
    }

    @Test("both sides after the rotation: X-WOPI-Proof with the current key, no refresh needed")
    func bothRotated() throws {
        let signer = try TestSigners.afterRotation.get()
        let result = verify(try signer.sign(request()), keys: signer.proofKeys)
        #expect(result == .valid(.proofWithCurrentKey))
        #expect(!result.suggestsKeyRefresh)
    }

    @Test("X-WOPI-ProofOld signed with the old key alone is refused (validator: CurrentInvalid.OldValidSignedWithOldKey)")
    func proofOldWithOldKeyIsRefused() throws {
        let host = try TestSigners.afterRotation.get().proofKeys
        let oldOnly = try TestSigners.beforeRotation.get().sign(request())
        let forged = try TestSigners.stranger.get().sign(request())
        let headers = ProofKeyHeaders(timestamp: oldOnly.timestamp, proof: forged.proof, proofOld: oldOnly.proof)
        let result = verify(headers, keys: host)
        #expect(result == .invalid(.signatureMismatch))
        #expect(result.suggestsKeyRefresh)
    }

    @Test("X-WOPI-Proof valid with X-WOPI-ProofOld garbage is accepted (validator: CurrentValid.OldInvalid)")
    func currentValidOldInvalid() throws {
        let signer = try TestSigners.beforeRotation.get()
        var headers = try signer.sign(request())
        headers.proofOld = try TestSigners.stranger.get().sign(request()).proof
        #expect(verify(headers, keys: signer.proofKeys) == .valid(.proofWithCurrentKey))
        headers.proofOld = "not base64!"
        #expect(verify(headers, keys: signer.proofKeys) == .valid(.proofWithCurrentKey))
    }

    @Test("an unrelated key's signatures are refused")
    func strangerIsRefused() throws {
        let host = try TestSigners.afterRotation.get().proofKeys
        let result = verify(try TestSigners.stranger.get().sign(request()), keys: host)
        #expect(result == .invalid(.signatureMismatch))
    }

    @Test("changing the token, the URL, its query or the timestamp breaks the proof")
    func tampering() throws {
        let signer = try TestSigners.beforeRotation.get()
        let keys = signer.proofKeys
        let headers = try signer.sign(request())
        #expect(verify(headers, keys: keys, token: "tok-124") == .invalid(.signatureMismatch))
        #expect(verify(headers, keys: keys, url: url.replacingOccurrences(of: "/42?", with: "/43?")) == .invalid(.signatureMismatch))
        #expect(verify(headers, keys: keys, url: url + "&x=1") == .invalid(.signatureMismatch))
        #expect(verify(headers, keys: keys, url: url.replacingOccurrences(of: "https:", with: "http:")) == .invalid(.signatureMismatch))
        var shifted = headers
        shifted.timestamp = ProofKeyTimestamp(ticks: headers.timestamp.ticks + 1)
        #expect(verify(shifted, keys: keys) == .invalid(.signatureMismatch))
        // Upper-casing is part of the scheme: a URL differing only in case still verifies.
        #expect(verify(headers, keys: keys, url: url.uppercased()) == .valid(.proofWithCurrentKey))
    }

    @Test("a flipped bit anywhere in the signature breaks it")
    func flippedSignatureBit() throws {
        let signer = try TestSigners.beforeRotation.get()
        let headers = try signer.sign(request())
        var bytes = [UInt8](try #require(Data(base64Encoded: headers.proof)))
        for index in [0, bytes.count / 2, bytes.count - 1] {
            bytes[index] ^= 0x01
            let broken = ProofKeyHeaders(timestamp: headers.timestamp, proof: Data(bytes).base64EncodedString(), proofOld: Data(bytes).base64EncodedString())
            #expect(verify(broken, keys: signer.proofKeys) == .invalid(.signatureMismatch))
            bytes[index] ^= 0x01
        }
    }

    @Test("timestamps up to 20 minutes old are accepted, older ones refused")
    func expiry() throws {
        let signer = try TestSigners.beforeRotation.get()
        let headers = try signer.sign(request())
        #expect(verify(headers, keys: signer.proofKeys, now: signedAt.addingTimeInterval(19 * 60)).isValid)
        #expect(verify(headers, keys: signer.proofKeys, now: signedAt.addingTimeInterval(20 * 60)).isValid)
        let late = verify(headers, keys: signer.proofKeys, now: signedAt.addingTimeInterval(20 * 60 + 1))
        #expect(late == .invalid(.timestampExpired(ageInSeconds: 20 * 60 + 1)))
        #expect(!late.suggestsKeyRefresh)
    }

    @Test("timestamps more than the allowed skew in the future are refused")
    func future() throws {
        let signer = try TestSigners.beforeRotation.get()
        let headers = try signer.sign(request())
        #expect(verify(headers, keys: signer.proofKeys, now: signedAt.addingTimeInterval(-4 * 60)).isValid)
        let early = verify(headers, keys: signer.proofKeys, now: signedAt.addingTimeInterval(-6 * 60))
        #expect(early == .invalid(.timestampInFuture(secondsAhead: 6 * 60)))
        var farFuture = headers
        farFuture.timestamp = ProofKeyTimestamp(ticks: .max)
        guard case .invalid(.timestampInFuture) = verify(farFuture, keys: signer.proofKeys) else {
            Issue.record("Int64.max ticks must be refused as future")
            return
        }
    }

    @Test("the window is configurable")
    func configurableWindow() throws {
        let signer = try TestSigners.beforeRotation.get()
        let request = request()
        let headers = try signer.sign(request)
        let strict = ProofKeyVerifier(keys: signer.proofKeys, maximumAge: 60, maximumClockSkew: 0)
        #expect(strict.verify(request, proof: headers.proof, proofOld: nil, now: signedAt.addingTimeInterval(61))
            == .invalid(.timestampExpired(ageInSeconds: 61)))
        #expect(strict.verify(request, proof: headers.proof, proofOld: nil, now: signedAt.addingTimeInterval(-1))
            == .invalid(.timestampInFuture(secondsAhead: 1)))
        #expect(strict.verify(request, proof: headers.proof, proofOld: nil, now: signedAt) == .valid(.proofWithCurrentKey))
    }

    @Test("missing or malformed headers are refused with a reason naming them")
    func malformedHeaders() throws {
        let signer = try TestSigners.beforeRotation.get()
        let keys = signer.proofKeys
        let headers = try signer.sign(request())
        let verifier = ProofKeyVerifier(keys: keys)
        let now = signedAt
        func check(timestamp: String?, proof: String?, proofOld: String?) -> ProofKeyVerification {
            verifier.verify(accessToken: token, url: url, timestampHeader: timestamp, proofHeader: proof, proofOldHeader: proofOld, now: now)
        }
        let ticks = headers.timestamp.headerValue
        #expect(check(timestamp: nil, proof: headers.proof, proofOld: headers.proofOld) == .invalid(.missingTimestamp))
        #expect(check(timestamp: "soon", proof: headers.proof, proofOld: nil) == .invalid(.malformedTimestamp("soon")))
        #expect(check(timestamp: "-5", proof: headers.proof, proofOld: nil) == .invalid(.malformedTimestamp("-5")))
        #expect(check(timestamp: ticks, proof: nil, proofOld: nil) == .invalid(.missingProof))
        #expect(check(timestamp: ticks, proof: "%%%", proofOld: nil) == .invalid(.malformedProof(header: "X-WOPI-Proof")))
        let wrong = try TestSigners.stranger.get().sign(request()).proof
        #expect(check(timestamp: ticks, proof: wrong, proofOld: "%%%") == .invalid(.malformedProof(header: "X-WOPI-ProofOld")))
        // ProofOld alone still verifies when Proof is absent: the current key signed it.
        #expect(check(timestamp: ticks, proof: nil, proofOld: headers.proofOld) == .valid(.proofOldWithCurrentKey))
        #expect(check(timestamp: ticks, proof: "", proofOld: nil) == .invalid(.signatureMismatch))
    }

    @Test("results describe themselves for logs")
    func descriptions() {
        #expect(ProofKeyVerification.valid(.proofWithOldKey).description == "valid: X-WOPI-Proof with the old key")
        #expect(ProofKeyVerification.invalid(.timestampExpired(ageInSeconds: 1300)).description == "invalid: X-WOPI-TimeStamp is 1300 s old")
        #expect(!ProofKeyVerification.invalid(.missingProof).isValid)
    }

    @Test("a signer round-trips through PEM and signs identically")
    func pemRoundTrip() throws {
        let signer = try TestSigners.afterRotation.get()
        let oldPEM = try #require(signer.oldKeyPEM)
        let restored = try ProofKeySigner(currentKeyPEM: signer.currentKeyPEM, oldKeyPEM: oldPEM)
        #expect(restored.proofKeys == signer.proofKeys)
        #expect(try restored.sign(request()) == signer.sign(request()))
        #expect(throws: ProofKeyError.self) { try ProofKeySigner(currentKeyPEM: "not a key") }
    }

    @Test("keys shorter than 2048 bits are refused")
    func shortKeysRefused() {
        #expect(throws: ProofKeyError.self) { try ProofKeySigner.generate(bits: 1024) }
        let modulus = Data([0xC1] + [UInt8](repeating: 0x55, count: 127))  // 1024 bits
        #expect(throws: ProofKeyError.self) { try ProofKey(modulus: modulus, exponent: Data([1, 0, 1])) }
    }
}
