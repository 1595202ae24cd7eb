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
    private var headerNames: HeaderNameGuard
    private var source: RequestBody.AsyncIterator
    private var events: [Event] = []
    private var next = 0
    private var inPart = false

    /// A reader for a request whose `Content-Type` is `multipart/form-data; boundary=…`; `nil` otherwise.
    init?(contentType: String?, body: RequestBody) {
        guard let contentType, let boundary = Self.boundary(in: contentType) else { return nil }
        parser = MultipartParser(boundary: boundary)
        headerNames = HeaderNameGuard(boundary: boundary)
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
            guard headerNames.accepts(chunk) else { throw Problem.malformed }
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

/// Refuses a body in which a part's header name holds a byte above 0x7F before MultipartKit sees it:
/// its parser (4.7) looks such a byte up in a 128-entry table and traps, which would stop the host.
///
/// It follows the body as MultipartKit does, with one difference that only widens what it checks: it
/// finds every `--boundary`, where MultipartKit finds those after a line break. After one, as after
/// each CR LF of a part's headers, the text up to `:` or CR is a header name and is checked; the
/// headers end at an empty line. So every header name MultipartKit reads is checked, and at most a
/// body with `--boundary` in the middle of a line is refused that MultipartKit would have read; browsers
/// pick boundaries that never appear in the data.
struct HeaderNameGuard {
    private enum Place {
        /// In a body, a preamble or an epilogue.
        case data
        /// After `--boundary`, before its line ends.
        case boundaryLine
        /// In a header name; whether it is still empty.
        case name(empty: Bool)
        /// In a header value, which may hold any byte (a browser sends a file name as UTF-8).
        case value
        /// After the CR that ends a header line.
        case lineEnd
        /// After the CR of the empty line that ends the headers.
        case headersEnd
    }

    private let pattern: [UInt8]
    /// Knuth–Morris–Pratt: for each prefix length, the longest proper prefix that is also its suffix.
    private let fallback: [Int]
    private var matched = 0
    private var place = Place.data

    init(boundary: String) {
        pattern = Array("--\(boundary)".utf8)
        var fallback = [0]
        var length = 0
        for index in pattern.indices.dropFirst() {
            while length > 0, pattern[index] != pattern[length] { length = fallback[length - 1] }
            if pattern[index] == pattern[length] { length += 1 }
            fallback.append(length)
        }
        self.fallback = fallback
    }

    /// Reads the next chunk of the body; `false` when a header name holds a byte above 0x7F.
    mutating func accepts(_ chunk: ByteBuffer) -> Bool {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        for byte in chunk.readableBytesView {
            while matched > 0, byte != pattern[matched] { matched = fallback[matched - 1] }
            if byte == pattern[matched] { matched += 1 }
            if matched == pattern.count {
                matched = fallback[matched - 1]
                place = .boundaryLine
                continue
            }
            switch place {
            case .data:
                break
            case .boundaryLine:
                if byte == lf { place = .name(empty: true) }
            case .name(let empty):
                if byte == cr {
                    place = empty ? .headersEnd : .lineEnd
                } else if byte == UInt8(ascii: ":") {
                    place = .value
                } else if byte > 0x7F {
                    return false
                } else {
                    place = .name(empty: false)
                }
            case .value:
                if byte == cr { place = .lineEnd }
            case .lineEnd:
                place = byte == lf ? .name(empty: true) : .value
            case .headersEnd:
                place = .data
            }
        }
        return true
    }
}
