/// Why the provider cannot be used, found at start (`wopi serve` stops with exit 2, `wopi doctor` reports it).
public enum OpenIDDiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The discovery document could not be fetched: the address and what went wrong.
    case unreachable(url: String, detail: String)
    /// The document's `issuer` is not the configured one (OpenID Connect Discovery 1.0 §4.3).
    case issuerMismatch(configured: String, document: String)
    /// The document is not a discovery document, or lacks an endpoint the host needs.
    case invalidDocument(url: String, detail: String)
    /// The JWKS could not be fetched or holds no key the host can verify with.
    case keysUnavailable(url: String, detail: String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .unreachable(let url, let detail):
            "the OpenID Connect issuer cannot be reached: \(url): \(detail)"
        case .issuerMismatch(let configured, let document):
            "the OpenID Connect issuer's discovery document names another issuer: configured '\(configured)', document says '\(document)'"
        case .invalidDocument(let url, let detail):
            "the OpenID Connect discovery document at \(url) is not usable: \(detail)"
        case .keysUnavailable(let url, let detail):
            "the OpenID Connect issuer's keys (JWKS) are not usable: \(url): \(detail)"
        }
    }
}
