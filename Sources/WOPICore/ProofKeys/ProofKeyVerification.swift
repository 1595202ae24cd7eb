/// Which of the three accepted combinations of proof header and key verified a request
/// (online/scenarios/proofkeys.rst, "Verifying the proof keys").
public enum ProofKeyMatch: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `X-WOPI-Proof` verified with the current key: the normal case.
    case proofWithCurrentKey
    /// `X-WOPI-ProofOld` verified with the current key: the client rotated its keys and the host
    /// still holds the previous set.
    case proofOldWithCurrentKey
    /// `X-WOPI-Proof` verified with the old key: the host has the new keys, the client machine
    /// that sent the request does not yet.
    case proofWithOldKey

    /// A phrase for logs, e.g. "X-WOPI-Proof with the current key".
    public var description: String {
        switch self {
        case .proofWithCurrentKey: "X-WOPI-Proof with the current key"
        case .proofOldWithCurrentKey: "X-WOPI-ProofOld with the current key"
        case .proofWithOldKey: "X-WOPI-Proof with the old key"
        }
    }
}

/// Why a request's proof was rejected. A host answers each of these with 500 (proofkeys.rst).
public enum ProofKeyFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no `X-WOPI-TimeStamp` header.
    case missingTimestamp
    /// `X-WOPI-TimeStamp` is not a non-negative decimal integer; carries the header text.
    case malformedTimestamp(String)
    /// The timestamp is older than the verifier's maximum age (20 minutes by default).
    case timestampExpired(ageInSeconds: Int64)
    /// The timestamp lies further in the future than the allowed clock skew.
    case timestampInFuture(secondsAhead: Int64)
    /// There is no `X-WOPI-Proof` header (and `X-WOPI-ProofOld` did not verify on its own).
    case missingProof
    /// A proof header is not base64; carries the header name. Reported only when no
    /// combination verified.
    case malformedProof(header: String)
    /// The proof headers are well-formed, but none of the three combinations verified.
    case signatureMismatch

    /// A one-line reason for logs.
    public var description: String {
        switch self {
        case .missingTimestamp: "missing X-WOPI-TimeStamp"
        case let .malformedTimestamp(text): "malformed X-WOPI-TimeStamp \"\(text.prefix(40))\""
        case let .timestampExpired(age): "X-WOPI-TimeStamp is \(age) s old"
        case let .timestampInFuture(ahead): "X-WOPI-TimeStamp is \(ahead) s in the future"
        case .missingProof: "missing X-WOPI-Proof"
        case let .malformedProof(header): "\(header) is not valid base64"
        case .signatureMismatch: "no proof verified with the current or old key"
        }
    }
}

/// The outcome of checking one request's proof: which combination verified, or why none did.
public enum ProofKeyVerification: Sendable, Hashable, CustomStringConvertible {
    /// The request was signed by the WOPI client.
    case valid(ProofKeyMatch)
    /// The request must be refused with 500.
    case invalid(ProofKeyFailure)

    /// Whether the request may be served.
    public var isValid: Bool {
        if case .valid = self { return true }
        return false
    }

    /// Whether the host should re-read discovery (rate-limited): a key rotation is under way
    /// (something verified only by way of the old key or the old proof), or no signature verified
    /// at all, which stale keys would also explain. Timestamp failures and missing headers say
    /// nothing about the keys.
    public var suggestsKeyRefresh: Bool {
        switch self {
        case .valid(.proofWithCurrentKey): false
        case .valid(.proofOldWithCurrentKey), .valid(.proofWithOldKey): true
        case .invalid(.signatureMismatch), .invalid(.malformedProof): true
        case .invalid: false
        }
    }

    /// A phrase for logs: "valid: …" or "invalid: …".
    public var description: String {
        switch self {
        case let .valid(match): "valid: \(match)"
        case let .invalid(failure): "invalid: \(failure)"
        }
    }
}
