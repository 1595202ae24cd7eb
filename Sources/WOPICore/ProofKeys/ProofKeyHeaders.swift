/// The three headers a WOPI client adds to sign a request (online/scenarios/proofkeys.rst).
public struct ProofKeyHeaders: Sendable, Hashable {
    /// The header that carries ``timestamp``.
    public static let timestampName = "X-WOPI-TimeStamp"
    /// The header that carries ``proof``.
    public static let proofName = "X-WOPI-Proof"
    /// The header that carries ``proofOld``.
    public static let proofOldName = "X-WOPI-ProofOld"

    /// The `X-WOPI-TimeStamp` value.
    public var timestamp: ProofKeyTimestamp
    /// The `X-WOPI-Proof` value: the signature with the current key, base64.
    public var proof: String
    /// The `X-WOPI-ProofOld` value: the signature with the old key, base64.
    public var proofOld: String

    /// Creates a set of proof headers.
    public init(timestamp: ProofKeyTimestamp, proof: String, proofOld: String) {
        self.timestamp = timestamp
        self.proof = proof
        self.proofOld = proofOld
    }

    /// The headers as name/value pairs, in the order above, ready to add to a request.
    public var fields: [(name: String, value: String)] {
        [
            (Self.timestampName, timestamp.headerValue),
            (Self.proofName, proof),
            (Self.proofOldName, proofOld),
        ]
    }
}
