import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// `Expect: 100-continue` on HTTP/1.1 connections (RFC 9110 §10.1.1).
///
/// A client that sends the expectation waits for `100 Continue` before it sends the body, so that a
/// request the server refuses anyway costs no upload. NIO answers nothing by itself, so the route
/// decides: when it starts reading the body, ``ExpectContinueMiddleware`` asks this handler to send
/// `100 Continue` first (``SendContinue``); when it answers without reading it (401, 404, 409, 413),
/// the final status goes out at once. Such an answer carries `Connection: close` and the connection
/// is then closed for writing: the client may or may not send the body it announced, so the
/// connection cannot carry another request. Whatever the client still sends is read and dropped.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The outbound user event that sends `100 Continue` when the request in progress still waits for it.
    struct SendContinue: Sendable {}

    private enum State {
        /// No expectation, or it is settled: the body was asked for, or it arrived anyway.
        case settled
        /// The request expects `100 Continue` and has sent no body yet.
        case awaitingContinue
    }

    private var state = State.settled
    private var closeAfterResponse = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            state = Self.expectsContinue(request) ? .awaitingContinue : .settled
        case .body, .end:
            // A client may send the body without waiting (RFC 9110 §10.1.1); a request without one ends here.
            state = .settled
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is SendContinue else { return context.triggerUserOutboundEvent(event, promise: promise) }
        guard state == .awaitingContinue else {
            promise?.succeed(())
            return
        }
        state = .settled
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: promise)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational && state == .awaitingContinue:
            state = .settled
            closeAfterResponse = true
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end where closeAfterResponse:
            closeAfterResponse = false
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(mode: .output, promise: nil) }
            if let promise { written.futureResult.cascade(to: promise) }
        default:
            context.write(data, promise: promise)
        }
    }

    /// Whether a request head carries `Expect: 100-continue` (the token is case-insensitive; the parser trims the value).
    static func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .expect].contains { $0.lowercased() == "100-continue" }
    }
}
