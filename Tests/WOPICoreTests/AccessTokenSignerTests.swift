import Crypto
import Foundation
import Testing
import WOPICore

@Suite("Access tokens")
struct AccessTokenSignerTests {
    let signer = AccessTokenSigner(key: SymmetricKey(size: .bits256))
    let user = ResourceID("user1")!
    let file = ResourceID("file1")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func claims(_ resource: WOPIResource? = nil, expiresIn seconds: TimeInterval = 3600) -> AccessTokenClaims {
        AccessTokenClaims(userID: user, resource: resource ?? .file(file), expiresAt: now.addingTimeInterval(seconds))
    }

    @Test("a token verifies for its user, resource and expiry, and access_token_ttl is the expiry in ms")
    func roundTrip() throws {
        let issued = claims()
        let token = signer.issue(issued)
        let verified = try signer.verify(token, for: .file(file), now: now)
        #expect(verified == issued)
        #expect(verified.accessTokenTTL == Int64(now.timeIntervalSince1970 * 1000) + 3_600_000)
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) }, "URL-safe without escaping")
    }

    @Test("the MAC is HMAC-SHA256 of the payload, and signing many tokens, also at once, never changes the signer's keyed state")
    func signingIsPureAndStandard() async throws {
        let key = SymmetricKey(size: .bits256)
        let signer = AccessTokenSigner(key: key)
        let first = signer.issue(claims())
        let parts = first.split(separator: ".")
        let expected = HMAC<SHA256>.authenticationCode(for: Data(parts[1].utf8), using: key)
        #expect(Base64URL.decode(parts[2]) == Data(expected), "an independent HMAC computes the same MAC")
        let others = await withTaskGroup(of: String.self) { group in
            for index in 0..<200 { group.addTask { signer.issue(self.claims(.file(ResourceID("f\(index)")!))) } }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(others.count == 200)
        #expect(signer.issue(claims()) == first, "the same claims sign to the same token after all that")
    }

    @Test("a token for file A does not open file B, a container, or the ecosystem")
    func wrongResource() {
        let token = signer.issue(claims())
        for other in [WOPIResource.file(ResourceID("file2")!), .container(file), .ecosystem] {
            #expect(throws: AccessTokenSigner.Failure.wrongResource) { try signer.verify(token, for: other, now: now) }
        }
    }

    @Test("expired tokens are refused")
    func expired() {
        let token = signer.issue(claims(expiresIn: 10))
        #expect(throws: AccessTokenSigner.Failure.expired) { try signer.verify(token, now: now.addingTimeInterval(11)) }
    }

    @Test("any change to a token, or another host's key, breaks it")
    func forgery() throws {
        let token = signer.issue(claims())
        let parts = token.split(separator: ".").map(String.init)
        // Re-target the payload to another file without the key.
        let forgedPayload = Base64URL.encode(Data("user1|f:file2|\(claims().accessTokenTTL)".utf8))
        #expect(throws: AccessTokenSigner.Failure.badSignature) { try signer.verify("v1.\(forgedPayload).\(parts[2])", now: now) }
        // Extend the expiry.
        let later = Base64URL.encode(Data("user1|f:file1|\(claims().accessTokenTTL + 999_999)".utf8))
        #expect(throws: AccessTokenSigner.Failure.badSignature) { try signer.verify("v1.\(later).\(parts[2])", now: now) }
        let other = AccessTokenSigner(key: SymmetricKey(size: .bits256))
        #expect(throws: AccessTokenSigner.Failure.badSignature) { try other.verify(token, now: now) }
        for garbage in ["", "v1", "v1..", "v2.\(parts[1]).\(parts[2])", String(repeating: "a", count: 600), "v1.a.b.c"] {
            #expect(throws: AccessTokenSigner.Failure.self) { try signer.verify(garbage, now: now) }
        }
    }

    @Test("a correctly signed token whose payload is not user|resource|expiry is malformed, not accepted")
    func signedButMalformed() throws {
        let key = SymmetricKey(size: .bits256)
        let signer = AccessTokenSigner(key: key)
        func signed(_ payloadBytes: [UInt8]) -> String {
            let payload = Base64URL.encode(Data(payloadBytes))
            return "v1.\(payload).\(Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key))))"
        }
        let ttl = claims().accessTokenTTL
        #expect(try signer.verify(signed(Array("user1|f:file1|\(ttl)".utf8)), now: now) == claims(), "the helper signs as the signer does")
        let payloads = ["user1|f:file1", "user1|f:file1|\(ttl)|x", "user1||\(ttl)", "|f:file1|\(ttl)", "user1|f:file1|", "user1|f:file1|soon",
                        "user 1|f:file1|\(ttl)", "user1|x:file1|\(ttl)", "user1|f:|\(ttl)", "user1|f:file1|\(ttl)0000000000000"]
        for payload in payloads {
            #expect(throws: AccessTokenSigner.Failure.malformed, "\(payload)") { try signer.verify(signed(Array(payload.utf8)), now: now) }
        }
        #expect(throws: AccessTokenSigner.Failure.malformed) { try signer.verify(signed([0xFF, 0xFE, 0x7C, 0x7C]), now: now) }
        // A dot inside the payload is not base64url, whatever follows it.
        #expect(throws: AccessTokenSigner.Failure.malformed) { try signer.verify("v1.a.b.c", now: now) }
    }

    @Test("the resource's compact form round-trips and rejects bad ids")
    func resourceForm() {
        for resource in [WOPIResource.file(file), .container(user), .ecosystem] {
            #expect(WOPIResource(compactForm: Substring(resource.compactForm)) == resource)
        }
        #expect(WOPIResource(compactForm: "f:../etc") == nil)
        #expect(WOPIResource(compactForm: "x:file1") == nil)
    }
}

@Suite("Secrets and ids")
struct SecretsTests {
    @Test("password hashes verify the right password only, and never show the hash")
    func passwordHash() throws {
        let hash = try PasswordHash(hashing: "correct horse", logN: 10)
        #expect(hash.verify("correct horse"))
        #expect(!hash.verify("correct horsf"))
        #expect(!hash.verify(""))
        #expect(PasswordHash(encoded: hash.encoded) == hash)
        #expect(!hash.description.contains(hash.encoded))
        #expect(try PasswordHash(hashing: "correct horse", logN: 10) != hash, "fresh salt each time")
        #expect(!PasswordHash.unusable.verify(""))
        #expect(PasswordHash(encoded: "md5$abc") == nil)
        // As a store reads it back: unchecked until verified, and a malformed value matches no password.
        #expect(PasswordHash(stored: hash.encoded).verify("correct horse"))
        #expect(!PasswordHash(stored: hash.encoded).verify("Correct horse"))
        #expect(!PasswordHash(stored: "md5$abc").verify("") && !PasswordHash(stored: "").verify(""))
    }

    @Test("constant-time comparison is still a comparison")
    func constantTime() {
        #expect(ConstantTime.equal("abc", "abc"))
        #expect(!ConstantTime.equal("abc", "abd"))
        #expect(!ConstantTime.equal("abc", "abcd"))
        #expect(!ConstantTime.equal(Array(repeating: UInt8(0), count: 256), []))
    }

    @Test("resource ids accept only [A-Za-z0-9_-], 1 to 64 characters")
    func resourceIDs() {
        #expect(ResourceID("abc_DEF-123") != nil)
        for bad in ["", "..", "../etc", "..%2F..%2Fetc", "a b", "a/b", "%00", String(repeating: "a", count: 65), "ä"] {
            #expect(ResourceID(bad) == nil, "\(bad)")
        }
        let random = ResourceID.random()
        #expect(random.rawValue.count == 32)
        #expect(random != ResourceID.random())
    }

    @Test("base64url round-trips without padding and rejects other alphabets")
    func base64url() {
        for length in 0..<40 {
            let data = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            let text = Base64URL.encode(data)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == data)
        }
        #expect(Base64URL.decode("ab+c") == nil)
        #expect(Base64URL.decode("a") == nil)
    }
}
