import Foundation

/// One HTTP response from the host under test, fully read.
struct WOPIResponse: Sendable, CustomStringConvertible {
    /// The status code.
    let status: Int
    /// Every header line, in order; names keep the server's spelling.
    let headers: [(name: String, value: String)]
    /// The body.
    let body: Data

    /// The values of every header named `name` (case-insensitive).
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The value of the header `name`, `nil` when it is absent. An empty value is `""`, not `nil`:
    /// WOPI's `X-WOPI-Lock: ` on a 409 for an unlocked file depends on that difference.
    func header(_ name: String) -> String? { values(name).first }

    /// The body parsed as JSON.
    func json() throws -> JSONValue { try JSONValue(data: body) }

    /// The body as text, for failure messages.
    var text: String { String(decoding: body.prefix(2048), as: UTF8.self) }

    var description: String { "HTTP \(status) \(headers.map { "\($0.name): \($0.value)" }) \(text)" }
}
