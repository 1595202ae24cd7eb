import Foundation
import Hummingbird
import WOPICore

/// Names each request's WOPI operation, binds its ``RequestScope`` (for audit events) and, with
/// metrics on, counts it by operation and status and times it, and counts the answers a store that
/// was down gave (``StoreUnavailable``).
struct OperationsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: HostMetrics?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let scope = RequestScope(requestID: context.id)
        // Without metrics there is nothing to name or time (this runs before every request).
        guard let metrics else { return try await RequestScope.$current.withValue(scope) { try await next(request, context) } }
        let operation = WOPIOperation(method: request.method.rawValue, path: request.uri.path, override: request.headers[.wopiOverride],
                                      hasOldLock: request.headers[.wopiOldLock] != nil).name
        let start = ContinuousClock.now
        do {
            let response = try await RequestScope.$current.withValue(scope) { try await next(request, context) }
            metrics.recordRequest(operation: operation, status: response.status.code, duration: ContinuousClock.now - start)
            return response
        } catch {
            if error is StoreUnavailable { metrics.recordStoreUnavailable() }
            if case BlobStoreError.unavailable = error { metrics.recordBlobStoreUnavailable() }
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.recordRequest(operation: operation, status: status, duration: ContinuousClock.now - start)
            throw error
        }
    }
}
