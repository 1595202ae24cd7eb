import Foundation
import TestSupport
import Testing
import WOPICore
@testable import WOPIHost

/// `Expect: 100-continue` over a raw socket (RFC 9110 §10.1.1): the client sends the request head,
/// waits, and sends the body only after `100 Continue`. A request the host refuses anyway gets its
/// final status before any body byte is sent.
@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    /// A PutFile head announcing `length` bytes, waiting for `100 Continue`.
    static func putFileHead(_ id: String, token: String, length: Int, lock: String? = nil, keepAlive: Bool = false) -> String {
        var lines = ["POST /wopi/files/\(id)/contents?access_token=\(TestHost.queryEscaped(token)) HTTP/1.1", "Host: 127.0.0.1",
                     "X-WOPI-Override: PUT", "Content-Length: \(length)", "Expect: 100-continue"]
        if let lock { lines.append("X-WOPI-Lock: \(lock)") }
        if !keepAlive { lines.append("Connection: close") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    @Test("A PutFile that waits for 100 Continue gets it before sending its body, is saved, and the connection serves the next request")
    func continueThenSave() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "expect-lock"), 200)
            let content = Array(String(repeating: "new content, sent after 100 Continue. ", count: 2000).utf8)
            let (interim, final, next) = try await offPool {
                let connection = try RawHTTPConnection(port: host.port, timeout: 60)
                connection.write(Self.putFileHead(doc.id, token: doc.token, length: content.count, lock: "expect-lock", keepAlive: true))
                // Nothing of the body is sent until the host asks for it.
                let interim = connection.readResponse()
                connection.write(content)
                let final = connection.readResponse()
                // The same connection carries the next request.
                connection.write("GET /wopi/files/\(doc.id)?access_token=\(TestHost.queryEscaped(doc.token)) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return (interim, final, connection.readResponse())
            }
            #expect(interim.status == 100, "the interim answer: \(interim)")
            #expect(final.status == 200, "PutFile after 100 Continue: \(final)")
            #expect(final.response?.header("X-WOPI-ItemVersion") != doc.file.versionString)
            #expect(next.status == 200, "CheckFileInfo on the same connection: \(next)")
            let saved = try await host.getFile(doc.id, token: doc.token).body == Data(content)
            #expect(saved, "GetFile returns what was sent after 100 Continue")
        }
    }

    @Test("A client that sends the body without waiting is served as usual")
    func bodyWithoutWaiting() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            expectStatus(try await host.lock(doc.id, token: doc.token, "expect-lock"), 200)
            let content = Array("sent at once".utf8)
            let outcome = try await RawHTTPConnection.exchange(
                port: host.port, Array(Self.putFileHead(doc.id, token: doc.token, length: content.count, lock: "expect-lock").utf8) + content)
            #expect(outcome.status == 200, "\(outcome)")
            #expect(try await host.getFile(doc.id, token: doc.token).body == Data(content))
        }
    }

    @Test("A refused PutFile (401 bad token, 404 unknown file, 409 wrong lock, 413 too large) is answered before any body byte, and the connection is closed")
    func refusalsBeforeTheBody() async throws {
        try await TestHost.run(maximumFileSize: 1024 * 1024) { host in
            let doc = try await host.document("Refused.docx", Data("the original bytes".utf8))
            expectStatus(try await host.lock(doc.id, token: doc.token, "the-real-lock"), 200)
            let before = try await host.snapshot(doc)
            let unknown = ResourceID.random().rawValue
            let cases: [(name: String, status: Int, head: String)] = [
                ("a forged token", 401, Self.putFileHead(doc.id, token: doc.token + "x", length: 1000, lock: "the-real-lock")),
                ("an unknown file", 404, Self.putFileHead(unknown, token: host.token(doc.user, .file(ResourceID(unknown)!)), length: 1000)),
                ("the wrong lock", 409, Self.putFileHead(doc.id, token: doc.token, length: 1000, lock: "someone-elses-lock")),
                ("a body over the maximum", 413, Self.putFileHead(doc.id, token: doc.token, length: 2 * 1024 * 1024, lock: "the-real-lock")),
            ]
            for (name, status, head) in cases {
                let (outcome, rest) = try await offPool {
                    // A host that waited for the body would leave this read to time out (the test host has no idle timeout).
                    let connection = try RawHTTPConnection(port: host.port, timeout: 60)
                    connection.write(head)
                    let outcome = connection.readResponse()
                    return (outcome, connection.readUntilClosed())
                }
                #expect(outcome.status == status, "PutFile with \(name): \(outcome)")
                #expect(outcome.response?.header("Connection")?.lowercased() == "close", "PutFile with \(name): \(outcome)")
                #expect(rest == [], "after refusing PutFile with \(name) the host must close the connection and send nothing more: \(String(describing: rest))")
            }
            #expect(try await host.snapshot(doc) == before)
        }
    }
}
