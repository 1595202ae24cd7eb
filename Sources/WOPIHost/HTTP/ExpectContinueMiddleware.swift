import Hummingbird
import NIOCore

/// Sends `100 Continue` when a route starts reading the body of a request that expects it
/// (``ExpectContinueHandler``), so a refused request is answered before the client uploads anything.
///
/// Only requests carrying `Expect: 100-continue` have their body wrapped; every other request passes
/// through untouched.
struct ExpectContinueMiddleware: RouterMiddleware {
    typealias Context = WOPIRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard ExpectContinueHandler.expectsContinue(request.head) else { return try await next(request, context) }
        var request = request
        request.body = RequestBody(asyncSequence: ContinuingBody(base: request.body, channel: context.channel))
        return try await next(request, context)
    }
}

/// A request body that asks for `100 Continue` before its first chunk is awaited.
struct ContinuingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let channel: any Channel

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        var channel: (any Channel)?

        mutating func next() async throws -> ByteBuffer? {
            if let channel {
                self.channel = nil
                // Without the handler in the pipeline (a custom server), the client waits for its own timeout as before.
                try? await channel.triggerUserOutboundEvent(ExpectContinueHandler.SendContinue()).get()
            }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), channel: channel)
    }
}
