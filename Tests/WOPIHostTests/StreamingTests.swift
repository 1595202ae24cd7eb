import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// Bodies stream both ways: a 64 MiB document goes up and comes back intact,
/// with neither side of the test holding it whole.
@Suite("Streaming")
struct StreamingTests {
    @Test("A 64 MiB PutFile and GetFile round trip keeps every byte (SHA-256 compared)", .timeLimit(.minutes(5)))
    func largeRoundTrip() async throws {
        try await TestHost.run { host in
            let body = PatternBody(chunkCount: 256, chunkSize: 256 * 1024, seed: 0x5EED)
            #expect(body.totalSize == 64 * 1024 * 1024)
            let expected = Data(body.sha256())
            let doc = try await host.document("Huge.pptx", Data())

            // 0-byte unlocked file: the first write needs no lock.
            let put = try await host.putFile(doc.id, token: doc.token, lock: nil, body: .stream(body, length: .known(body.totalSize)))
            expectStatus(put, 200)

            let info = try await host.checkFileInfo(doc.id, token: doc.token).json()
            #expect(info["Size"]?.int == body.totalSize)
            #expect(info["SHA256"]?.string == expected.base64EncodedString())
            #expect(info["Version"]?.string == put.header("X-WOPI-ItemVersion"))

            // Download chunk by chunk, hashing as the bytes arrive.
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(host.port)/wopi/files/\(doc.id)/contents?access_token=\(doc.token)")
            request.method = .GET
            let response = try await host.client.execute(request, timeout: .minutes(5))
            #expect(response.status.code == 200)
            #expect(response.headers.first(name: "X-WOPI-ItemVersion") == put.header("X-WOPI-ItemVersion"))
            #expect(response.headers.first(name: "Content-Length") == "\(body.totalSize)")
            var hasher = SHA256()
            var received: Int64 = 0
            var largestChunk = 0
            for try await chunk in response.body {
                received += Int64(chunk.readableBytes)
                largestChunk = max(largestChunk, chunk.readableBytes)
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            }
            #expect(received == body.totalSize)
            #expect(Data(hasher.finalize()) == expected)
            #expect(largestChunk < 16 * 1024 * 1024, "the body should arrive in pieces, not as one buffer")
        }
    }

    @Test("An interrupted upload leaves the old content and version intact")
    func droppedUpload() async throws {
        try await TestHost.run { host in
            let original = Data("survives".utf8)
            let doc = try await host.document("Fragile.docx", original)
            expectStatus(try await host.lock(doc.id, token: doc.token, "L"), 200)
            // Announce 1 MiB, send 256 KiB, then fail: the client aborts the request mid-body.
            let failing = FailingBody(chunks: 1, chunkSize: 256 * 1024)
            await #expect(throws: (any Error).self) {
                _ = try await host.putFile(doc.id, token: doc.token, lock: "L", body: .stream(failing, length: .known(Int64(1024 * 1024))))
            }
            let get = try await host.getFile(doc.id, token: doc.token)
            expectStatus(get, 200)
            #expect(get.body == original)
            #expect(get.header("X-WOPI-ItemVersion") == doc.file.versionString)
            // Nothing half-written stays behind in the staging folder.
            try await Task.sleep(for: .milliseconds(300))
            let staging = try FileManager.default.contentsOfDirectory(atPath: host.folder.fileBlobs.stagingFolder.path)
            #expect(staging.isEmpty, "left in tmp/: \(staging)")
        }
    }
}

/// A body that yields some chunks and then throws, like a client whose source fails mid-upload.
private struct FailingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: Int
    let chunkSize: Int

    struct Interrupted: Error {}

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: FailingBody
        var sent = 0
        mutating func next() async throws -> ByteBuffer? {
            guard sent < body.chunks else { throw Interrupted() }
            sent += 1
            return ByteBuffer(repeating: 0x55, count: body.chunkSize)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
