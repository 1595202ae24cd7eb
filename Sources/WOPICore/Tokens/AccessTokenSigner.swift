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

    private let key: SymmetricKey
    /// HMAC with the key already absorbed: each token copies it and hashes only its payload, instead of
    /// deriving the key pads again (EnumerateChildren signs one token per child; issue 10).
    private let keyed: HMAC<SHA256>

    /// Creates a signer with a host-wide secret of at least 32 bytes.
    public init(key: SymmetricKey) {
        precondition(key.bitCount >= 256, "token keys must be at least 256 bits")
        self.key = key
        self.keyed = HMAC<SHA256>(key: key)
    }

    /// Issues a token carrying `claims`.
    public func issue(_ claims: AccessTokenClaims) -> String {
        let payload = Base64URL.encode(Data("\(claims.userID.rawValue)|\(claims.resource.compactForm)|\(claims.accessTokenTTL)".utf8))
        var mac = keyed
        mac.update(data: Data(payload.utf8))
        return "v1.\(payload).\(Base64URL.encode(Data(mac.finalize())))"
    }

    /// Checks a token's form, signature and expiry, and returns its claims.
    public func verify(_ token: String, now: Date = Date()) throws(Failure) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 512, parts.count == 3, parts[0] == "v1",
              let mac = Base64URL.decode(parts[2])
        else { throw .malformed }
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(parts[1].utf8), using: key) else {
            throw .badSignature
        }
        guard let payload = Base64URL.decode(parts[1]).flatMap({ String(data: $0, encoding: .utf8) }) else { throw .malformed }
        let fields = payload.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 3,
              let user = ResourceID(String(fields[0])),
              let resource = WOPIResource(compactForm: fields[1]),
              let ttl = Int64(fields[2])
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
