import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// Reads a `multipart/form-data` request body (RFC 7578) part by part, streaming each part's
/// bytes as they arrive: MultipartKit's parser runs on one request chunk at a time and this
/// reader hands on what it produced before pulling the next chunk, so at most one chunk is held.
///
/// Unchecked `Sendable`: used from one task at a time (the upload handler), which awaits each read before the next.
final class MultipartFormReader: @unchecked Sendable {
    /// The headers of one part.
    struct Part: Sendable, Hashable {
        /// The form field's name.
        var name: String
        /// The file name a browser sent for a file field (possibly empty when no file was chosen).
        var filename: String?
    }

    /// Why the body cannot be read.
    enum Problem: Error, Sendable, Equatable {
        /// The body is not valid multipart or ended inside a part.
        case malformed
    }

    private enum Event {
        case header(String, String)
        case body(ByteBuffer)
        case end
    }

    private let parser: MultipartParser
    private var source: RequestBody.AsyncIterator
    private var events: [Event] = []
    private var next = 0
    private var inPart = false

    /// A reader for a request whose `Content-Type` is `multipart/form-data; boundary=…`; `nil` otherwise.
    init?(contentType: String?, body: RequestBody) {
        guard let contentType, let boundary = Self.boundary(in: contentType) else { return nil }
        parser = MultipartParser(boundary: boundary)
        source = body.makeAsyncIterator()
        parser.onHeader = { [unowned self] name, value in events.append(.header(name, value)) }
        parser.onBody = { [unowned self] buffer in events.append(.body(buffer)) }
        parser.onPartComplete = { [unowned self] in events.append(.end) }
    }

    /// The next part's headers, skipping what is left of the current part; `nil` after the last part.
    func nextPart() async throws -> Part? {
        while inPart { _ = try await nextBodyChunk() }
        var headers: [(String, String)] = []
        while let event = try await peek() {
            guard case .header(let name, let value) = event else { break }
            headers.append((name, value))
            next += 1
        }
        if headers.isEmpty {
            // No further part: the body must have ended cleanly.
            guard try await peek() == nil else { throw Problem.malformed }
            return nil
        }
        inPart = true
        guard let disposition = headers.first(where: { $0.0.lowercased() == "content-disposition" })?.1,
              let name = Self.parameter("name", in: disposition) else { throw Problem.malformed }
        return Part(name: name, filename: Self.parameter("filename", in: disposition))
    }

    /// The next bytes of the current part; `nil` at its end.
    func nextBodyChunk() async throws -> ByteBuffer? {
        guard inPart else { return nil }
        guard let event = try await peek() else { throw Problem.malformed }
        next += 1
        switch event {
        case .body(let buffer): return buffer
        case .end: inPart = false; return nil
        case .header: throw Problem.malformed
        }
    }

    /// The current part as text of at most `limit` bytes (a small form field).
    func text(limit: Int) async throws -> String {
        var bytes = ByteBuffer()
        while let chunk = try await nextBodyChunk() {
            guard bytes.readableBytes + chunk.readableBytes <= limit else { throw Problem.malformed }
            bytes.writeImmutableBuffer(chunk)
        }
        return String(buffer: bytes)
    }

    /// The current part's bytes as an async sequence, for ``BlobStore/write(_:maximumSize:)``.
    var partBody: PartBody { PartBody(reader: self) }

    /// The bytes of the current part.
    struct PartBody: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let reader: MultipartFormReader

        func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

        struct Iterator: AsyncIteratorProtocol {
            let reader: MultipartFormReader
            mutating func next() async throws -> ByteBuffer? { try await reader.nextBodyChunk() }
        }
    }

    /// The next event without consuming it, pulling and parsing request chunks as needed; `nil` at the end of the body.
    private func peek() async throws -> Event? {
        while next >= events.count {
            events.removeAll(keepingCapacity: true)
            next = 0
            guard let chunk = try await source.next() else { return nil }
            do { try parser.execute(chunk) } catch { throw Problem.malformed }
        }
        return events[next]
    }

    /// The `boundary` parameter of a `multipart/form-data` content type (RFC 7578 §4.1; RFC 2046 §5.1.1: 1 to 70 characters).
    static func boundary(in contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data",
              let boundary = parameter("boundary", in: contentType), (1...70).contains(boundary.utf8.count) else { return nil }
        return boundary
    }

    /// A parameter of a header value such as `form-data; name="files"; filename="a.docx"`, quotes removed.
    ///
    /// Browsers send a file name's `"` as `%22` and line breaks as `%0A`/`%0D` (HTML Living Standard,
    /// "multipart/form-data encoding algorithm"), so those escapes are undone.
    static func parameter(_ wanted: String, in value: String) -> String? {
        var index = value.startIndex
        while index < value.endIndex {
            guard let semicolon = value[index...].firstIndex(of: ";") else { return nil }
            var cursor = value.index(after: semicolon)
            while cursor < value.endIndex, value[cursor] == " " { cursor = value.index(after: cursor) }
            guard let equals = value[cursor...].firstIndex(of: "=") else { return nil }
            let name = value[cursor..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var start = value.index(after: equals)
            let result: Substring
            if start < value.endIndex, value[start] == "\"" {
                start = value.index(after: start)
                let close = value[start...].firstIndex(of: "\"") ?? value.endIndex
                result = value[start..<close]
                index = close < value.endIndex ? value.index(after: close) : close
            } else {
                let end = value[start...].firstIndex(of: ";") ?? value.endIndex
                result = value[start..<end]
                index = end
            }
            if name == wanted {
                return String(result).replacingOccurrences(of: "%22", with: "\"").replacingOccurrences(of: "%0A", with: "\n")
                    .replacingOccurrences(of: "%0D", with: "\r")
            }
        }
        return nil
    }
}
