import Foundation
import _CryptoExtras

/// Signs WOPI requests the way Office does, for tests, the Office simulator and `wopi proof sign`
/// (online/scenarios/proofkeys.rst).
///
/// `X-WOPI-Proof` is signed with the current private key and `X-WOPI-ProofOld` with the old one
/// (with the current one when there is no old key), RSA PKCS#1 v1.5 over SHA-256.
public struct ProofKeySigner: Sendable {
    /// The private key behind discovery's current key.
    public let currentKey: _RSA.Signing.PrivateKey
    /// The private key behind discovery's old key, if any.
    public let oldKey: _RSA.Signing.PrivateKey?
    /// The public keys to publish in discovery.
    public let proofKeys: ProofKeyPair

    /// Creates a signer from private keys.
    ///
    /// - Throws: ``ProofKeyError/unsupportedKey(reason:)`` when a public key cannot be derived.
    public init(currentKey: _RSA.Signing.PrivateKey, oldKey: _RSA.Signing.PrivateKey? = nil) throws(ProofKeyError) {
        self.currentKey = currentKey
        self.oldKey = oldKey
        proofKeys = ProofKeyPair(
            current: try ProofKey(currentKey.publicKey),
            old: try oldKey.map { key throws(ProofKeyError) in try ProofKey(key.publicKey) }
        )
    }

    /// Creates a signer from PEM private keys (PKCS#1 `RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`).
    ///
    /// - Throws: ``ProofKeyError/invalidPrivateKey(reason:)`` naming which key could not be read.
    public init(currentKeyPEM: String, oldKeyPEM: String? = nil) throws(ProofKeyError) {
        let current = try Self.privateKey(pem: currentKeyPEM, role: "current key")
        let old = try oldKeyPEM.map { pem throws(ProofKeyError) in try Self.privateKey(pem: pem, role: "old key") }
        try self.init(currentKey: current, oldKey: old)
    }

    /// Creates a signer with a freshly generated current key (and, if asked, an old key too).
    public static func generate(bits: Int = 2048, withOldKey: Bool = false) throws(ProofKeyError) -> ProofKeySigner {
        let current = try generateKey(bits: bits)
        let old = withOldKey ? try generateKey(bits: bits) : nil
        return try ProofKeySigner(currentKey: current, oldKey: old)
    }

    /// A signer after a key rotation: a new current key, and this signer's current key as the old one.
    public func rotated(bits: Int = 2048) throws(ProofKeyError) -> ProofKeySigner {
        try ProofKeySigner(currentKey: Self.generateKey(bits: bits), oldKey: currentKey)
    }

    /// The current private key as PEM (PKCS#1 `RSA PRIVATE KEY`), to store it.
    public var currentKeyPEM: String { currentKey.pemRepresentation }

    /// The old private key as PEM, if there is one.
    public var oldKeyPEM: String? { oldKey?.pemRepresentation }

    /// Signs a request and returns the headers to send with it.
    public func sign(_ request: ProofKeyRequest) throws(ProofKeyError) -> ProofKeyHeaders {
        let message = request.signedBytes
        let proof = try Self.signature(of: message, with: currentKey)
        let proofOld = try Self.signature(of: message, with: oldKey ?? currentKey)
        return ProofKeyHeaders(timestamp: request.timestamp, proof: proof, proofOld: proofOld)
    }

    /// Signs a request to `url` made with `accessToken` at `date` (now by default).
    public func sign(accessToken: String, url: String, at date: Date = Date()) throws(ProofKeyError) -> ProofKeyHeaders {
        try sign(ProofKeyRequest(accessToken: accessToken, url: url, timestamp: ProofKeyTimestamp(date)))
    }

    /// A discovery document that publishes this signer's keys, plus any actions given.
    public func discoveryDocument(actions: [DiscoveryDocument.Action] = []) -> DiscoveryDocument {
        DiscoveryDocument(proofKeys: proofKeys, actions: actions)
    }

    private static func signature(of message: [UInt8], with key: _RSA.Signing.PrivateKey) throws(ProofKeyError) -> String {
        do {
            return try key.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation.base64EncodedString()
        } catch {
            throw .signingFailed(reason: "\(error)")
        }
    }

    private static func generateKey(bits: Int) throws(ProofKeyError) -> _RSA.Signing.PrivateKey {
        do {
            return try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits))
        } catch {
            throw .unsupportedKey(reason: "cannot generate a \(bits)-bit key (\(error))")
        }
    }

    private static func privateKey(pem: String, role: String) throws(ProofKeyError) -> _RSA.Signing.PrivateKey {
        do {
            return try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw .invalidPrivateKey(reason: "\(role): \(error)")
        }
    }
}
