import Crypto
import _CryptoExtras
import Foundation

/// A stored password: scrypt with a random salt, encoded with its parameters so they can change later.
///
/// Form: `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (salt and hash base64url). Verification re-derives
/// the hash with the stored parameters and compares in constant time.
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible {
    /// The encoded form to store.
    public let encoded: String

    /// The cost used for new hashes: N = 2^15, r = 8, p = 1 (32 MiB, RFC 7914 §2 interactive-login range).
    public static let defaultLogN = 15

    /// Hashes `password` with a fresh 16-byte salt.
    public init(hashing password: String, logN: Int = PasswordHash.defaultLogN) throws {
        let salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
        let hash = try Self.derive(password, salt: salt, logN: logN, r: 8, p: 1)
        encoded = "scrypt$\(logN)$8$1$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
    }

    /// Wraps a stored hash; `nil` when it is not of the expected form.
    public init?(encoded: String) {
        guard Self.parse(encoded) != nil else { return nil }
        self.encoded = encoded
    }

    /// A hash as a store keeps it, checked only when a password is verified: a malformed value matches no
    /// password, exactly as ``unusable`` does. Users are read on every WOPI request, where parsing the
    /// scrypt parameters bought nothing.
    public init(stored encoded: String) {
        self.encoded = encoded
    }

    /// A hash no password matches, standing in for a stored value that cannot be read.
    public static let unusable = PasswordHash(raw: "!")

    private init(raw: String) { encoded = raw }

    /// Whether `password` matches, compared in constant time.
    public func verify(_ password: String) -> Bool {
        guard let parts = Self.parse(encoded),
              let derived = try? Self.derive(password, salt: parts.salt, logN: parts.logN, r: parts.r, p: parts.p)
        else { return false }
        return ConstantTime.equal(derived, parts.hash)
    }

    /// The encoded form never shows the hash in logs.
    public var description: String { "PasswordHash(scrypt)" }

    private static func parse(_ encoded: String) -> (logN: Int, r: Int, p: Int, salt: Data, hash: Data)? {
        let f = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard f.count == 6, f[0] == "scrypt", let logN = Int(f[1]), (10...20).contains(logN),
              let r = Int(f[2]), (1...32).contains(r), let p = Int(f[3]), (1...16).contains(p),
              let salt = Base64URL.decode(f[4]), let hash = Base64URL.decode(f[5]), hash.count == 32
        else { return nil }
        return (logN, r, p, salt, hash)
    }

    private static func derive(_ password: String, salt: Data, logN: Int, r: Int, p: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(from: Data(password.utf8), salt: salt, outputByteCount: 32,
                                           rounds: 1 << logN, blockSize: r, parallelism: p)
        return key.withUnsafeBytes { Data($0) }
    }
}
