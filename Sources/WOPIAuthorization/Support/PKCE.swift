import Crypto
import Foundation
import WOPICore

/// Proof Key for Code Exchange, S256 only (RFC 7636 §4.2; `plain` is refused as RFC 9700 §2.1.1 advises).
enum PKCE {
    /// Whether `text` is a well-formed S256 challenge: 43 base64url characters (a 32-byte digest).
    static func isValidChallenge(_ text: String) -> Bool {
        text.utf8.count == 43 && Base64URL.decode(text)?.count == 32
    }

    /// Whether `verifier` is 43-128 unreserved characters (RFC 7636 §4.1).
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || "-._~".utf8.contains(byte)
            }
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether `verifier` answers `challenge`, compared in constant time.
    static func verify(_ verifier: String, against challenge: String) -> Bool {
        isValidVerifier(verifier) && ConstantTime.equal(Self.challenge(for: verifier), challenge)
    }
}
