import Hummingbird

/// Answers 431 (Request Header Fields Too Large, RFC 6585 §5) before any route runs when one header
/// field or the whole header block is larger than ``HeaderLimits``, so such a request changes nothing.
struct HeaderLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limits: HeaderLimits

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = limits.problem(request.headers.map { ($0.name.rawName, $0.value) }) {
            throw WOPIError(.init(code: 431, reasonPhrase: "Request Header Fields Too Large"), problem)
        }
        return try await next(request, context)
    }
}

/// How large request headers may be. A field counts its name, `": "` and value; the block counts
/// every field plus two bytes of line ending each.
///
/// Defaults: 8 KiB per field and 32 KiB in all — what common proxies allow (nginx's
/// `large_client_header_buffers 4 8k`), ample for WOPI's proof headers (under 1 KiB each) and tokens.
public struct HeaderLimits: Sendable, Hashable {
    /// The largest single header field, in bytes.
    public var maximumFieldSize: Int
    /// The largest header block, in bytes.
    public var maximumBlockSize: Int

    /// Creates limits; both must be positive.
    public init?(maximumFieldSize: Int = 8 * 1024, maximumBlockSize: Int = 32 * 1024) {
        guard maximumFieldSize > 0, maximumBlockSize >= maximumFieldSize else { return nil }
        self.maximumFieldSize = maximumFieldSize
        self.maximumBlockSize = maximumBlockSize
    }

    /// The defaults: 8 KiB per field, 32 KiB per block.
    public static let standard = HeaderLimits()!

    /// Why the fields break a limit, or `nil` when they do not. Names the field, never its value.
    public func problem(_ fields: [(name: String, value: String)]) -> String? {
        var total = 0
        for field in fields {
            let size = field.name.utf8.count + 2 + field.value.utf8.count
            if size > maximumFieldSize {
                return "the \(field.name.prefix(64)) header is \(size) bytes; at most \(maximumFieldSize) are accepted"
            }
            total += size + 2
        }
        return total > maximumBlockSize ? "the request headers are \(total) bytes; at most \(maximumBlockSize) are accepted" : nil
    }
}
