import Foundation
import Hummingbird
import NIOCore
import Testing
@testable import WOPIAuthorization
@testable import WOPIHost

/// The web front's `multipart/form-data` reader on bodies as browsers send them and as the
/// `multipart` fuzz target (Fuzz/) broke them.
@Suite("Multipart form reader")
struct MultipartFormReaderTests {
    static let contentType = "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW"

    /// Reads every part the way the upload handler does: names, small fields as text, files drained.
    static func read(_ body: [UInt8], chunkSize: Int = 7) async throws -> [(name: String, filename: String?, text: String)] {
        let chunks = stride(from: 0, to: body.count, by: chunkSize).map { ByteBuffer(bytes: body[$0..<min($0 + chunkSize, body.count)]) }
        let reader = try #require(MultipartFormReader(contentType: contentType, body: RequestBody(asyncSequence: Chunks(chunks: chunks))))
        var parts: [(name: String, filename: String?, text: String)] = []
        while let part = try await reader.nextPart() {
            parts.append((part.name, part.filename, try await reader.text(limit: 1024)))
        }
        return parts
    }

    struct Chunks: AsyncSequence, Sendable {
        let chunks: [ByteBuffer]
        struct AsyncIterator: AsyncIteratorProtocol {
            var rest: ArraySlice<ByteBuffer>
            mutating func next() async -> ByteBuffer? { rest.popFirst() }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
    }

    /// Chrome's upload with the second part's `Content-Disposition` name broken by a 0x80 byte, as the
    /// fuzzer left it: MultipartKit 4.7 looked the byte up in a 128-entry table and trapped, so one
    /// request stopped the host.
    @Test("a part header name with a byte above 0x7F is refused as malformed, not a crash", arguments: [1, 7, 4096])
    func headerNameAboveASCIIIsRefused(chunkSize: Int) async throws {
        let body = Array("------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nq8Yc1fH2yWk3xA\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Dispositi".utf8)
            + [0x80] + Array("n: form-data; name=\"files\"; filename=\"a.docx\"\r\n\r\nPK\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n".utf8)
        await #expect(throws: MultipartFormReader.Problem.malformed) { _ = try await Self.read(body, chunkSize: chunkSize) }
    }

    /// The fuzzer's second find, after the first was fixed: a header value holding a lone line feed
    /// (which does not end the line), then a header name starting with 0xFF.
    @Test("a header name with a byte above 0x7F after a value holding a line feed is refused too", arguments: [1, 7, 4096])
    func headerNameAfterLineFeedInValueIsRefused(chunkSize: Int) async throws {
        let body = Array("------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; n\n\r\ntoClosedRangeitFormBou".utf8)
            + [0xFF, 0xFF] + Array("ndarame=\"csrf\"\r\n\r\nq8Yc\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n".utf8)
        await #expect(throws: MultipartFormReader.Problem.malformed) { _ = try await Self.read(body, chunkSize: chunkSize) }
    }

    @Test("UTF-8 in header values and bodies still reads, whatever the chunks", arguments: [1, 7, 4096])
    func utf8ValuesStillRead(chunkSize: Int) async throws {
        let body = Array("preamble\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nq8Yc\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"files\"; filename=\"Bericht für Q4.docx\"\r\nContent-Type: application/octet-stream\r\n\r\nÄ--b\r\nü\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n".utf8)
        let parts = try await Self.read(body, chunkSize: chunkSize)
        #expect(parts.map(\.name) == ["csrf", "files"])
        #expect(parts.map(\.filename) == [nil, "Bericht für Q4.docx"])
        #expect(parts.map(\.text) == ["q8Yc", "Ä--b\r\nü"])
    }
}
