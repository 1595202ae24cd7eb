import Crypto
import Foundation
import WOPICore

/// The SHA-256 digest of a secret (a client secret, an authorization code, an OAuth token or a
/// session context): what the authorization server stores instead of the secret itself.
///
/// The secrets it digests are random and long (≥ 128 bits), so a fast hash is enough: a database
/// leak reveals no usable code, token or secret (RFC 6819 §5.1.4.1.3, "Store hashes").
public struct SecretDigest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 digest bytes, lower-case hex.
    public let hex: String

    /// The digest of `secret`'s UTF-8 bytes.
    public init(of secret: String) {
        hex = SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Wraps a stored digest; `nil` unless it is 64 lower-case hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        self.hex = hex
    }

    /// Whether `secret` has this digest, compared in constant time.
    public func matches(_ secret: String) -> Bool {
        ConstantTime.equal(SecretDigest(of: secret).hex, hex)
    }

    /// Whether two digests are equal, compared in constant time.
    public func matches(_ other: SecretDigest) -> Bool {
        ConstantTime.equal(other.hex, hex)
    }

    /// Never the digest itself, so that logs cannot be used to correlate secrets.
    public var description: String { "SecretDigest(sha256)" }
}
