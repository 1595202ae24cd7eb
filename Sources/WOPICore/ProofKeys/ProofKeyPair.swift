/// The current and the old proof key of a WOPI client, from one `proof-key` element of its
/// discovery XML.
///
/// Office rotates its keys: the current key becomes the old one and a new current key appears.
/// Keeping both lets a host accept requests during a rotation (online/scenarios/proofkeys.rst,
/// "Retrieving the public key").
public struct ProofKeyPair: Sendable, Hashable {
    /// The key from the `modulus`/`exponent` (and `value`) attributes.
    public var current: ProofKey
    /// The key from the `oldmodulus`/`oldexponent` (and `oldvalue`) attributes; `nil` when
    /// discovery publishes none.
    public var old: ProofKey?

    /// Creates a pair from its keys.
    public init(current: ProofKey, old: ProofKey?) {
        self.current = current
        self.old = old
    }
}
