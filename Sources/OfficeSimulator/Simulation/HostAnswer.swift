import Foundation
import WOPIHTTPClient

/// What a host answered, reduced to what explains a failure: the status, the headers that matter
/// to WOPI and OAuth, and the start of the body.
public struct HostAnswer: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public let status: Int
    /// The `X-WOPI-*`, `WWW-Authenticate`, `Location` and `Content-Type` headers, in order.
    public let headers: [SimulatorHeader]
    /// The first characters of the body, whitespace collapsed; empty when there was no body.
    public let bodyExcerpt: String

    /// The longest body excerpt kept.
    public static let maximumExcerptLength = 300

    /// Creates an answer from its parts.
    public init(status: Int, headers: [SimulatorHeader], bodyExcerpt: String) {
        self.status = status
        self.headers = headers
        self.bodyExcerpt = bodyExcerpt
    }

    /// Keeps the parts of `response` that explain a failure.
    public init(_ response: SimulatorResponse) {
        let relevant = response.headers.filter { field in
            let name = field.name.lowercased()
            return name.hasPrefix("x-wopi-") || ["www-authenticate", "location", "content-type"].contains(name)
        }
        let isBinary = response.header("Content-Type")?.lowercased().hasPrefix("application/octet-stream") ?? false
        let collapsed = isBinary ? "\(response.body.count) bytes" : response.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let excerpt = collapsed.count > Self.maximumExcerptLength ? String(collapsed.prefix(Self.maximumExcerptLength)) + "…" : collapsed
        self.init(status: response.status, headers: relevant, bodyExcerpt: excerpt)
    }

    /// `HTTP 409; X-WOPI-Lock: ""; body: …`.
    public var description: String {
        var parts = ["HTTP \(status)"]
        parts += headers.map { "\($0.name): \"\($0.value)\"" }
        if !bodyExcerpt.isEmpty { parts.append("body: \(bodyExcerpt)") }
        return parts.joined(separator: "; ")
    }
}
