import Foundation
import WOPICore
import WOPIHTTPClient
import _CryptoExtras

/// Signs the validator's requests the way a WOPI client does (proofkeys.rst), so the `ProofKeys` group
/// can run: Microsoft's own runner has no private key and cannot.
///
/// Every request carrying an `access_token` gets `X-WOPI-TimeStamp`, `X-WOPI-Proof` (current key) and
/// `X-WOPI-ProofOld` (old key). A `<ProofKey>` mutator changes them as the test case asks; an invalid
/// proof is a real signature made with a third key the host has never seen, so only the key is wrong.
///
/// | mutator                    | X-WOPI-Proof   | X-WOPI-ProofOld |
/// |----------------------------|----------------|-----------------|
/// | none                       | current        | old             |
/// | `MutateOld`                | current        | unknown         |
/// | `KeyRelation="Ahead"`      | unknown (next) | current         |
/// | `KeyRelation="Behind"`     | old            | unknown         |
/// | `MutateCurrent`            | unknown        | old             |
/// | `MutateCurrent MutateOld`  | unknown        | unknown         |
/// | `Timestamp="…"`            | that instant, signed correctly   |
public struct ValidatorProofSigner: Sendable {
    let current: _RSA.Signing.PrivateKey
    let old: _RSA.Signing.PrivateKey
    let unknown: _RSA.Signing.PrivateKey

    /// Creates a signer from the WOPI client's current and old private keys (PEM), the pair whose public
    /// halves the host's discovery XML publishes. Without an old key the current one signs both proofs.
    ///
    /// - Throws: `ProofKeyError` when a key cannot be read.
    public init(currentKeyPEM: String, oldKeyPEM: String?) throws(ProofKeyError) {
        let pair = try ProofKeySigner(currentKeyPEM: currentKeyPEM, oldKeyPEM: oldKeyPEM)
        current = pair.currentKey
        old = pair.oldKey ?? pair.currentKey
        unknown = try ProofKeySigner.generate().currentKey
    }

    /// Whether an old key distinct from the current one was given; the `ProofKeys` group needs it
    /// (a request signed "with the old key" must be told apart from one signed with the current key).
    public var hasDistinctOldKey: Bool { old.derRepresentation != current.derRepresentation }

    /// The proof headers for `request`, or none when its URL carries no `access_token`.
    func headers(for request: TransportRequest, mutator: RequestMutator?, now: Date = Date()) -> [HeaderField] {
        let url = request.url.absoluteString
        guard let token = URLQuery.parameter("access_token", in: url) else { return [] }
        var proofKey = current
        var proofOldKey = old
        var instant = now
        if case .proofKey(let mutateCurrent, let mutateOld, let timestamp, let relation)? = mutator {
            switch relation?.lowercased() {
            case "ahead"?:
                proofKey = unknown
                proofOldKey = current
            case "behind"?:
                proofKey = old
                proofOldKey = unknown
            default:
                if mutateCurrent { proofKey = unknown }
                if mutateOld { proofOldKey = unknown }
            }
            if let timestamp, let date = Self.date(timestamp) { instant = date }
        }
        do {
            let signed = try ProofKeySigner(currentKey: proofKey, oldKey: proofOldKey)
                .sign(ProofKeyRequest(accessToken: token, url: url, timestamp: ProofKeyTimestamp(instant)))
            return signed.fields.map { HeaderField($0.name, $0.value) }
        } catch {
            // Signing a well-formed request with a loaded key does not fail; send no proof rather than a wrong one.
            return []
        }
    }

    /// The `Timestamp` attribute: an ISO 8601 instant, as TestCases.xml writes it.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
