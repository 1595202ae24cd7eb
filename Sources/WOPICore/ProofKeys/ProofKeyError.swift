/// Why a proof key, a private signing key or a signature could not be used.
public enum ProofKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A value that must be base64 is not; `field` names it (e.g. `modulus`, `X-WOPI-Proof`).
    case invalidBase64(field: String)
    /// A `value`/`oldvalue` attribute is not a .NET `ExportCspBlob` RSA public key blob.
    case invalidCSPBlob(reason: String)
    /// The RSA implementation refused the key (for instance because it is shorter than 2048 bits).
    case unsupportedKey(reason: String)
    /// A private key could not be read from its PEM text.
    case invalidPrivateKey(reason: String)
    /// Signing failed inside the RSA implementation.
    case signingFailed(reason: String)

    /// A one-line explanation that names the problem.
    public var description: String {
        switch self {
        case let .invalidBase64(field): "proof key: \(field) is not valid base64"
        case let .invalidCSPBlob(reason): "proof key: invalid CSP public key blob: \(reason)"
        case let .unsupportedKey(reason): "proof key: unsupported RSA key: \(reason)"
        case let .invalidPrivateKey(reason): "proof key: invalid private key: \(reason)"
        case let .signingFailed(reason): "proof key: signing failed: \(reason)"
        }
    }
}
