import Foundation
import Hummingbird
import NIOCore
import TestSupport
import Testing
import WOPIHTTPClient

/// The real transport against a loopback server: what it refuses and what it leaves alone.
@Suite("AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportTests {
    /// `GET /bytes/:count` answers that many bytes; `GET /moved` redirects to `/bytes/1`.
    static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("bytes/:count") { _, context in
            let count = try context.parameters.require("count", as: Int.self)
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "x"), count: count)))
        }
        router.get("moved") { _, _ in
            Response(status: .found, headers: [.location: "/bytes/1"])
        }
        return router
    }

    // The timeouts are hang guards: in the full parallel suite the loopback server's handler can wait long for a thread.
    @Test("a body up to the maximum arrives whole; one byte more is refused")
    func bodyCap() async throws {
        try await LoopbackServer.serve(Self.router(), label: "body-cap") { base in
            try await AsyncHTTPClientTransport.withTransport(timeout: .seconds(120), maximumBodySize: 1024) { transport in
                let whole = try await transport.send(TransportRequest(method: "GET", url: base.appending(path: "bytes/1024")))
                #expect(whole.status == 200)
                #expect(whole.body == Data(repeating: UInt8(ascii: "x"), count: 1024))
                await #expect(throws: TransportFailure(.bodyTooLarge(maximumBytes: 1024)), "the cap, not a timeout") {
                    try await transport.send(TransportRequest(method: "GET", url: base.appending(path: "bytes/1025")))
                }
                #expect(TransportFailure(.bodyTooLarge(maximumBytes: 64 << 20)).description == "body over 64 MiB; reading stopped there")
            }
        }
    }

    @Test("nothing listening is 'connection refused', in words, not an errno")
    func refusedInWords() async throws {
        let url = URL(string: "http://127.0.0.1:\(try LocalPort.free())/wopi/files/F1")!
        _ = try await AsyncHTTPClientTransport.withTransport(timeout: .seconds(30)) { transport in
            await #expect(throws: TransportFailure(.refused)) {
                try await transport.send(TransportRequest(method: "GET", url: url))
            }
        }
        #expect(TransportFailure(.refused).description == "connection refused (nothing listens there)")
        #expect(TransportFailure(.timedOut(seconds: 60)).description == "timed out after 60 s without a complete answer")
    }

    @Test("a redirect is answered as sent, never followed")
    func redirectNotFollowed() async throws {
        try await LoopbackServer.serve(Self.router(), label: "redirect") { base in
            let answer = try await AsyncHTTPClientTransport.withTransport(timeout: .seconds(120)) { transport in
                try await transport.send(TransportRequest(method: "GET", url: base.appending(path: "moved")))
            }
            #expect(answer.status == 302)
            #expect(answer.header("location") == "/bytes/1")
            #expect(answer.body.isEmpty)
        }
    }
}
