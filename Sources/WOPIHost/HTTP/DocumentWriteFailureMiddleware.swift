import Hummingbird
import Logging
import WOPICore

/// Answers a request that failed writing a document body (PutFile, PutRelativeFile, CreateChildFile,
/// uploads) with 500 and the reason in `X-WOPI-ServerError` — "no space left on the document store"
/// for a full disk — and counts and audits it. The blob store has already removed the partial body
/// and nothing was recorded, so the file keeps its content and Version.
///
/// Only requests that write (POST, PUT) are mapped; a failed read keeps its plain 500.
struct DocumentWriteFailureMiddleware<Context: RequestContext>: RouterMiddleware {
    let backend: WOPIBackend

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where !(error is any HTTPResponseError) && (request.method == .post || request.method == .put) {
            guard let failure = DocumentWriteFailure(error) else { throw error }
            backend.configuration.monitor.metrics?.recordDocumentWriteError(reason: failure.reason)
            let operation = WOPIOperation(method: request.method.rawValue, path: request.uri.path, override: request.headers[.wopiOverride],
                                          hasOldLock: request.headers[.wopiOldLock] != nil).name
            backend.audit(.writeFailed, details: ["operation": operation, "reason": failure.reason])
            context.logger.error("writing a document body failed: \(error)")
            throw WOPIError(.internalServerError, failure.message)
        }
    }
}
