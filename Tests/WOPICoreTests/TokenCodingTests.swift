import Foundation
import Testing
import WOPICore

/// Base64url and id validation were rewritten for speed; they must accept, refuse and
/// produce exactly what the string-replacing versions did, which are kept here as the reference.
@Suite("Token coding")
struct TokenCodingTests {
    private static func referenceEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func referenceDecode(_ text: String) -> Data? {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=".utf8)
        guard text.utf8.allSatisfy({ allowed.contains($0) }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 = base64.replacingOccurrences(of: "=", with: "")
        if base64.count % 4 == 1 { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    @Test("Encoding random bytes matches the reference and decodes back")
    func encodeMatchesReference() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let data = Data((0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            let encoded = Base64URL.encode(data)
            #expect(encoded == Self.referenceEncode(data))
            #expect(Base64URL.decode(encoded) == data)
        }
    }

    @Test("Decoding agrees with the reference on valid, padded, truncated and foreign input")
    func decodeMatchesReference() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. %é")
        var samples = ["", "=", "==", "A", "AA", "AA==", "A=A=", "QUJD", "QUJD=", "QUJDRA", "QUJDRA==", "QUJDRA=", "-_-_", "+/+/", "Zm9v YmFy", "é"]
        for _ in 0..<3_000 {
            samples.append(String((0..<Int.random(in: 0...24, using: &generator)).map { _ in
                alphabet[Int.random(in: 0..<(Int.random(in: 0...9, using: &generator) == 0 ? alphabet.count : 65), using: &generator)]
            }))
        }
        for sample in samples {
            #expect(Base64URL.decode(sample) == Self.referenceDecode(sample), "\(sample)")
            #expect(Base64URL.decode(sample[...]) == Self.referenceDecode(sample), "substring \(sample)")
        }
    }

    @Test("Resource ids accept exactly [A-Za-z0-9_-], 1 to 64 characters")
    func resourceIDAlphabet() {
        for byte in UInt8(0)...UInt8(127) {
            let character = String(UnicodeScalar(byte))
            let expected = character.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
            #expect((ResourceID("a" + character + "b") != nil) == expected, "byte \(byte)")
        }
        #expect(ResourceID("") == nil)
        #expect(ResourceID(String(repeating: "a", count: 64)) != nil)
        #expect(ResourceID(String(repeating: "a", count: 65)) == nil)
        #expect(ResourceID("é") == nil)
    }
}
