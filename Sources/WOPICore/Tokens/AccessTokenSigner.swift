import Crypto
import Foundation

/// Issues and checks WOPI access tokens.
///
/// A token is `v1.<payload>.<mac>`: the base64url payload names the user, the one resource and
/// the expiry; the mac is HMAC-SHA256 over the payload with a host-wide key. Nothing in it is a
/// secret a client could reuse elsewhere: changing any claim breaks the mac, which is checked in
/// constant time. Tokens need no storage, so every machine sharing the key accepts them;
/// revocation when a user is removed happens at lookup, because the user no longer exists.
public struct AccessTokenSigner: Sendable {
    /// Why a token was refused. Deliberately coarse on the wire (every case is a 401), precise in logs.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not of the `v1.<payload>.<mac>` form, or the payload does not decode.
        case malformed
        /// The mac does not match: forged or altered.
        case badSignature
        /// Past its expiry.
        case expired
        /// Valid, but for another resource than the one requested.
        case wrongResource

        /// One line naming the problem.
        public var description: String {
            switch self {
            case .malformed: "malformed access token"
            case .badSignature: "access token signature does not verify"
            case .expired: "access token expired"
            case .wrongResource: "access token is for another resource"
            }
        }
    }

    /// HMAC with the key already absorbed: each token issued or checked copies it and hashes only its
    /// payload, instead of deriving the key pads again.
    private let keyed: HMAC<SHA256>

    /// Creates a signer with a host-wide secret of at least 32 bytes.
    public init(key: SymmetricKey) {
        precondition(key.bitCount >= 256, "token keys must be at least 256 bits")
        self.keyed = HMAC<SHA256>(key: key)
    }

    /// Issues a token carrying `claims`.
    public func issue(_ claims: AccessTokenClaims) -> String {
        let payload = Base64URL.encode(bytes: "\(claims.userID.rawValue)|\(claims.resource.compactForm)|\(claims.accessTokenTTL)".utf8)
        return "v1.\(payload).\(Base64URL.encode(bytes: Array(mac(of: payload))))"
    }

    /// The MAC of a token's payload text, from the pre-keyed HMAC.
    private func mac(of payload: some StringProtocol) -> HashedAuthenticationCode<SHA256> {
        var mac = keyed
        if payload.utf8.withContiguousStorageIfAvailable({ mac.update(data: UnsafeRawBufferPointer($0)) }) == nil {
            mac.update(data: Array(payload.utf8))
        }
        return mac.finalize()
    }

    /// Checks a token's form, signature and expiry, and returns its claims.
    public func verify(_ token: String, now: Date = Date()) throws(Failure) -> AccessTokenClaims {
        // Bytes throughout, not Characters or Data: every WOPI request checks a token, and String's
        // grapheme-aware `split`, Data slices and Foundation's base64 were most of this function.
        let bytes = token.utf8
        guard bytes.count <= 512, bytes.starts(with: "v1.".utf8),
              let macDot = bytes.lastIndex(of: UInt8(ascii: ".")), macDot > bytes.index(bytes.startIndex, offsetBy: 2)
        else { throw .malformed }
        let payloadText = token[bytes.index(bytes.startIndex, offsetBy: 3)..<macDot]
        guard !payloadText.utf8.contains(UInt8(ascii: ".")), let mac = Base64URL.decodeBytes(token[bytes.index(after: macDot)...]) else {
            throw .malformed
        }
        // `==` between a MAC and bytes is swift-crypto's constant-time comparison.
        guard self.mac(of: payloadText) == mac else { throw .badSignature }
        guard let payload = Base64URL.decodeBytes(payloadText) else { throw .malformed }
        // `user|resource|expiry`
        guard let first = payload.firstIndex(of: UInt8(ascii: "|")), let last = payload.lastIndex(of: UInt8(ascii: "|")), first < last,
              let user = ResourceID(String(decoding: payload[..<first], as: UTF8.self)),
              let resource = WOPIResource(compactForm: Substring(String(decoding: payload[(first + 1)..<last], as: UTF8.self))),
              let ttl = Int64(String(decoding: payload[(last + 1)...], as: UTF8.self))
        else { throw .malformed }
        let claims = AccessTokenClaims(userID: user, resource: resource, expiresAt: Date(millisecondsSince1970: ttl))
        guard claims.expiresAt > now else { throw .expired }
        return claims
    }

    /// Checks a token and that it grants exactly `resource`.
    public func verify(_ token: String, for resource: WOPIResource, now: Date = Date()) throws(Failure) -> AccessTokenClaims {
        let claims = try verify(token, now: now)
        guard claims.resource == resource else { throw .wrongResource }
        return claims
    }
}
