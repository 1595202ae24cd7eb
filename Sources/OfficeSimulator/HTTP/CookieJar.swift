import Foundation
import WOPIHTTPClient

/// The cookies of one sign-in flow, so a CSRF or session cookie set by the sign-in page comes back
/// with the form (RFC 6265 §5.3–§5.4, reduced to what a single flow against one host needs:
/// cookies are keyed by host and name; `Path` and `Domain` are not narrowed further).
struct CookieJar: Sendable {
    private var cookies: [String: [(name: String, value: String)]] = [:]

    /// Stores the `Set-Cookie` fields of a response from `url`; `Max-Age=0` or an empty value removes a cookie.
    mutating func store(_ response: SimulatorResponse, from url: URL) {
        guard let host = url.host?.lowercased() else { return }
        for field in response.headers(named: "Set-Cookie") {
            let attributes = field.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = attributes.first, let eq = first.firstIndex(of: "="), eq != first.startIndex else { continue }
            let name = String(first[..<eq])
            let value = String(first[first.index(after: eq)...])
            let expired = attributes.dropFirst().contains { $0.lowercased().replacingOccurrences(of: " ", with: "") == "max-age=0" }
            var list = cookies[host, default: []].filter { $0.name != name }
            if !expired, !value.isEmpty { list.append((name, value)) }
            cookies[host] = list
        }
    }

    /// The `Cookie` header for a request to `url`, or `nil` when there is nothing to send.
    func header(for url: URL) -> SimulatorHeader? {
        guard let host = url.host?.lowercased(), let list = cookies[host], !list.isEmpty else { return nil }
        return SimulatorHeader("Cookie", list.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
    }
}
