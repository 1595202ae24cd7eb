import Foundation
import _CryptoExtras

/// One RSA public key a WOPI client signs requests with, as published in the `proof-key`
/// element of its discovery XML (WOPI docs, online/scenarios/proofkeys.rst, "Retrieving the public key").
///
/// Discovery gives each key twice: as base64 `modulus` and `exponent`, and as `value`, the key
/// exported by .NET's `RSACryptoServiceProvider.ExportCspBlob`. Both forms can be read and written.
/// Verification is RSA PKCS#1 v1.5 over SHA-256, as Office signs.
public struct ProofKey: Sendable, Hashable, CustomStringConvertible {
    /// The RSA modulus, big-endian, without leading zero bytes.
    public let modulus: Data
    /// The RSA public exponent, big-endian, without leading zero bytes.
    public let exponent: Data
    private let publicKey: _RSA.Signing.PublicKey

    /// Creates a key from its big-endian modulus and exponent.
    ///
    /// - Throws: ``ProofKeyError/unsupportedKey(reason:)`` when the RSA implementation refuses the
    ///   key, for instance when it is shorter than 2048 bits.
    public init(modulus: Data, exponent: Data) throws(ProofKeyError) {
        let modulus = Self.strippingLeadingZeros(modulus)
        let exponent = Self.strippingLeadingZeros(exponent)
        guard !modulus.isEmpty, !exponent.isEmpty else {
            throw .unsupportedKey(reason: "modulus and exponent must not be zero")
        }
        do {
            publicKey = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
        } catch {
            throw .unsupportedKey(reason: "\(modulus.count * 8)-bit modulus refused (\(error))")
        }
        self.modulus = modulus
        self.exponent = exponent
    }

    /// Creates a key from the base64 `modulus` and `exponent` attributes of discovery's `proof-key`.
    ///
    /// - Throws: ``ProofKeyError/invalidBase64(field:)`` naming the attribute, or
    ///   ``ProofKeyError/unsupportedKey(reason:)``.
    public init(base64Modulus: String, base64Exponent: String) throws(ProofKeyError) {
        guard let modulus = Data(base64Encoded: base64Modulus) else { throw .invalidBase64(field: "modulus") }
        guard let exponent = Data(base64Encoded: base64Exponent) else { throw .invalidBase64(field: "exponent") }
        try self.init(modulus: modulus, exponent: exponent)
    }

    /// Creates a key from a .NET CSP public key blob (`PUBLICKEYBLOB`: `BLOBHEADER`, `RSAPUBKEY`
    /// with magic `RSA1`, then the modulus little-endian), the format of discovery's `value` attribute.
    ///
    /// - Throws: ``ProofKeyError/invalidCSPBlob(reason:)`` naming what is wrong, or
    ///   ``ProofKeyError/unsupportedKey(reason:)``.
    public init(cspBlob: Data) throws(ProofKeyError) {
        let bytes = [UInt8](cspBlob)
        guard bytes.count >= 20 else { throw .invalidCSPBlob(reason: "\(bytes.count) bytes, the header alone needs 20") }
        guard bytes[0] == Self.publicKeyBlobType else {
            throw .invalidCSPBlob(reason: "blob type \(bytes[0]), expected \(Self.publicKeyBlobType) (PUBLICKEYBLOB)")
        }
        guard bytes[1] == Self.blobVersion else { throw .invalidCSPBlob(reason: "blob version \(bytes[1]), expected 2") }
        let algorithm = Self.littleEndianUInt32(bytes, at: 4)
        guard algorithm == Self.rsaKeyExchangeAlgorithm || algorithm == Self.rsaSignatureAlgorithm else {
            throw .invalidCSPBlob(reason: "key algorithm 0x\(String(algorithm, radix: 16)) is not RSA")
        }
        guard Array(bytes[8..<12]) == Self.rsaPublicMagic else { throw .invalidCSPBlob(reason: "magic is not RSA1") }
        let bitLength = Int(Self.littleEndianUInt32(bytes, at: 12))
        guard bitLength > 0, bitLength % 8 == 0 else { throw .invalidCSPBlob(reason: "bit length \(bitLength)") }
        guard bytes.count == 20 + bitLength / 8 else {
            throw .invalidCSPBlob(reason: "\(bytes.count) bytes, a \(bitLength)-bit key needs \(20 + bitLength / 8)")
        }
        let exponentValue = Self.littleEndianUInt32(bytes, at: 16)
        let exponent = Data(withUnsafeBytes(of: exponentValue.bigEndian) { Array($0) })
        let modulus = Data(bytes[20...].reversed())
        try self.init(modulus: modulus, exponent: exponent)
    }

    /// Creates a key from the base64 `value` attribute of discovery's `proof-key`.
    public init(base64CSPBlob: String) throws(ProofKeyError) {
        guard let blob = Data(base64Encoded: base64CSPBlob) else { throw .invalidBase64(field: "value") }
        try self.init(cspBlob: blob)
    }

    /// Creates a key from a swift-crypto RSA public key, such as the public half of a signer's key.
    public init(_ publicKey: _RSA.Signing.PublicKey) throws(ProofKeyError) {
        let primitives: _RSA.Signing.PublicKey.Primitives
        do {
            primitives = try publicKey.getKeyPrimitives()
        } catch {
            throw .unsupportedKey(reason: "cannot read modulus and exponent (\(error))")
        }
        try self.init(modulus: primitives.modulus, exponent: primitives.publicExponent)
    }

    /// The modulus in base64, as in discovery's `modulus` attribute.
    public var base64Modulus: String { modulus.base64EncodedString() }

    /// The exponent in base64, as in discovery's `exponent` attribute.
    public var base64Exponent: String { exponent.base64EncodedString() }

    /// The key as a .NET CSP `PUBLICKEYBLOB`, as in discovery's `value` attribute; `nil` when the
    /// exponent does not fit the blob's 32-bit field.
    public var cspBlob: Data? {
        guard exponent.count <= 4 else { return nil }
        var blob: [UInt8] = [Self.publicKeyBlobType, Self.blobVersion, 0, 0]
        blob += Self.littleEndianBytes(Self.rsaKeyExchangeAlgorithm)
        blob += Self.rsaPublicMagic
        blob += Self.littleEndianBytes(UInt32(modulus.count * 8))
        let exponentValue = exponent.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
        blob += Self.littleEndianBytes(exponentValue)
        blob += modulus.reversed()
        return Data(blob)
    }

    /// The CSP blob in base64, or `nil` like ``cspBlob``.
    public var base64CSPBlob: String? { cspBlob?.base64EncodedString() }

    /// The key size in bits.
    public var keySizeInBits: Int { publicKey.keySizeInBits }

    /// The key as PEM (`BEGIN PUBLIC KEY`), for tools that want it.
    public var pemRepresentation: String { publicKey.pemRepresentation }

    /// Checks an RSA PKCS#1 v1.5 SHA-256 signature over `message`, the scheme WOPI proofs use.
    ///
    /// swift-crypto's overload without a padding argument uses PSS, which rejects every proof Office sends.
    public func isValidSignature(_ signature: Data, for message: some DataProtocol) -> Bool {
        publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: message,
            padding: .insecurePKCS1v1_5
        )
    }

    /// A short identification: the size and the start of the modulus in base64.
    public var description: String {
        "ProofKey(\(modulus.count * 8)-bit, modulus \(base64Modulus.prefix(12))…)"
    }

    /// Two keys are equal when their modulus and exponent are.
    public static func == (lhs: ProofKey, rhs: ProofKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }

    /// Hashes the modulus and exponent.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(modulus)
        hasher.combine(exponent)
    }

    // MARK: - CSP blob constants (wincrypt.h)

    private static let publicKeyBlobType: UInt8 = 0x06
    private static let blobVersion: UInt8 = 0x02
    private static let rsaKeyExchangeAlgorithm: UInt32 = 0xA400  // CALG_RSA_KEYX, what Office publishes
    private static let rsaSignatureAlgorithm: UInt32 = 0x2400  // CALG_RSA_SIGN
    private static let rsaPublicMagic: [UInt8] = Array("RSA1".utf8)

    private static func littleEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    private static func littleEndianBytes(_ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func strippingLeadingZeros(_ data: Data) -> Data {
        Data(data.drop(while: { $0 == 0 }))
    }
}
