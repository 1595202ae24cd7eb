import Foundation
import Hummingbird
import Logging

/// Logs one line per request: method, path, status, duration.
///
/// Hummingbird's own request logger prints the URI with its query, and WOPI puts the access
/// token in the query, so this one logs the path only — never a token.
package struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, start: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            // WOPIError messages never hold secrets; other errors come from storage and name no tokens either.
            let reason = (error as? WOPIError)?.message ?? (status >= 500 ? "\(type(of: error)): \(error)" : nil)
            log(request, context, status: status, start: start, reason: reason)
            throw error
        }
    }

    /// The path with any secret in it replaced: a share link's path segment is its bearer token.
    package static func loggablePath(_ path: String) -> String {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let share = segments.firstIndex(of: "share"), segments.indices.contains(share + 1) {
            segments[share + 1] = "<token>"
        }
        return segments.joined(separator: "/")
    }

    private func log(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant, reason: String? = nil) {
        // The line's metadata is built before the call, so skip it all when info lines are not written.
        guard context.logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        var metadata: Logger.Metadata = ["status": "\(status)", "ms": "\(String(format: "%.1f", milliseconds))"]
        if let override = request.headers[.wopiOverride] { metadata["override"] = "\(override.prefix(32))" }
        if let reason { metadata["reason"] = "\(reason)" }
        context.logger.info("\(request.method) \(Self.loggablePath(request.uri.path))", metadata: metadata)
    }
}
