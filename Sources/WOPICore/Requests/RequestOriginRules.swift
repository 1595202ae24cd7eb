import Foundation

/// Whether a browser's state-changing request (a form `POST`) may come from where it says it
/// comes from, as a pure function: a host refuses a request its own pages did not send.
///
/// Two headers a browser sets and a page cannot forge are read:
/// - `Sec-Fetch-Site` (W3C Fetch Metadata Request Headers, §2.4): `same-origin` and `none` (the
///   user typed or bookmarked the address) pass; `same-site` and `cross-site` are refused, since
///   a sibling origin (another subdomain) is as untrusted as any other site. A value the
///   specification does not define is refused.
/// - `Origin` (RFC 6454 §7, and the Fetch Standard for `POST`): it must be the host's own origin
///   (RFC 6454 §6.2 serialization of its public URL).
///
/// `Origin: null` names no origin: the Fetch Standard ("append a request `Origin` header") has a
/// browser send it for every `POST` from a page served with `Referrer-Policy: no-referrer`, as the
/// host's own pages are, so it counts as absent and `Sec-Fetch-Site` decides. A request with
/// neither header (a client that is not a browser, or an old one) passes: the form's CSRF token
/// still guards it. Both headers, when present, must pass.
public enum RequestOriginRules {
    /// What a request says about where it comes from.
    public struct Request: Sendable, Hashable {
        /// The `Sec-Fetch-Site` header, if any.
        public var fetchSite: String?
        /// The `Origin` header, if any.
        public var origin: String?

        /// A request with these header values (`nil` when the header is absent).
        public init(fetchSite: String?, origin: String?) {
            self.fetchSite = fetchSite
            self.origin = origin
        }
    }

    /// Why a request is refused.
    public enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// `Sec-Fetch-Site` says another site (`cross-site`) or a sibling origin (`same-site`) sent it,
        /// or has a value Fetch Metadata does not define; the value.
        case fetchSite(String)
        /// `Origin` is not the host's own origin; the value.
        case origin(String)

        /// One line naming the header and its value.
        public var description: String {
            switch self {
            case .fetchSite(let value): "Sec-Fetch-Site is '\(value)', not same-origin"
            case .origin(let value): "Origin '\(value)' is not this host's origin"
            }
        }
    }

    /// What the host should do.
    public enum Decision: Sendable, Hashable {
        /// The request may change state (its CSRF token is still checked).
        case allowed
        /// The request must change nothing.
        case refused(Refusal)
    }

    /// Decides `request` for a host whose own origin is `hostOrigin` (see ``origin(of:)``).
    public static func evaluate(_ request: Request, hostOrigin: String) -> Decision {
        if let site = request.fetchSite?.trimmingCharacters(in: .whitespaces) {
            switch site.lowercased() {
            case "same-origin", "none": break
            default: return .refused(.fetchSite(site))
            }
        }
        if let origin = request.origin?.trimmingCharacters(in: .whitespaces), origin != "null" {
            // Browsers send the serialized origin, so it is compared as text (RFC 6454 §5: ASCII case-insensitive).
            guard origin.lowercased() == hostOrigin.lowercased() else { return .refused(.origin(origin)) }
        }
        return .allowed
    }

    /// The ASCII serialization of a URL's origin (RFC 6454 §6.2): `scheme://host`, plus `:port`
    /// when the port is not the scheme's default; scheme and host in lower case. `nil` for a URL
    /// without an http(s) scheme or a host (whose origin is opaque).
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != defaultPort else { return "\(scheme)://\(bracketed)" }
        return "\(scheme)://\(bracketed):\(port)"
    }
}
