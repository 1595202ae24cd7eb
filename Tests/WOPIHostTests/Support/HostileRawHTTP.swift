import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to the host under test, for requests no HTTP client library would send:
/// conflicting framing headers, bytes outside ASCII, bodies cut off half-way.
///
/// Calls block, so tests run them through ``RawHTTPConnection/exchange(port:_:)`` and friends,
/// which move the work off Swift's cooperative pool.
final class RawHTTPConnection: @unchecked Sendable {
    /// What the server answered, or how the connection ended without an answer.
    enum Outcome: Sendable, CustomStringConvertible {
        case response(RawHTTPResponse)
        /// The server closed (or reset) the connection without sending a status line.
        case closed

        var response: RawHTTPResponse? { if case .response(let value) = self { value } else { nil } }
        var status: Int? { response?.status }

        var description: String {
            switch self {
            case .response(let response): "\(response)"
            case .closed: "connection closed without a response"
            }
        }
    }

    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; reads and writes time out after `timeout` seconds: a hang guard, wide because the
    /// in-process host may wait minutes for a thread while the whole suite runs on two cores.
    init(port: Int, timeout: Int = 240) throws {
        descriptor = try LocalPort.connection(to: port, timeout: timeout)
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes`; returns `false` when the server has already closed the connection.
    @discardableResult
    func write(_ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        var offset = 0
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        while offset < array.count {
            let sent = array.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, array.count - offset, flags) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Writes text as UTF-8 bytes, unchecked, so a test can put any character into a header.
    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Closes the sending side: the server sees end-of-stream (FIN) but can still answer.
    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Resets the connection (RST), as a client that vanishes does.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Reads until the server closes the connection; `nil` when the read times out first (the
    /// server kept the connection open). Returns what arrived before the end of stream.
    func readUntilClosed() -> [UInt8]? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count == 0 { return received }
            guard count > 0 else { return errno == ECONNRESET ? received : nil }
            received.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads one response: status line, headers, and a body framed by Content-Length or chunked
    /// encoding (or read to end of stream). `.closed` when the server sent nothing.
    func readResponse() -> Outcome {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        func fill() -> Bool {
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            if buffer.count >= 4, let index = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<$0 + 4]) == separator }) {
                headerEnd = index
                break
            }
            guard fill() else { break }
        }
        guard let headerEnd else { return .closed }
        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return .closed }
        let headers: [(String, String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(buffer[(headerEnd + 4)...])
        let value = { (name: String) in headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1 }
        if let length = value("Content-Length").flatMap(Int.init) {
            while body.count < length {
                let before = buffer.count
                guard fill() else { break }
                body.append(contentsOf: buffer[before...])
            }
            body = Array(body.prefix(length))
        } else if value("Transfer-Encoding")?.lowercased() == "chunked" {
            var raw = body
            body = Self.dechunk(&raw) { () -> [UInt8]? in
                let before = buffer.count
                return fill() ? Array(buffer[before...]) : nil
            }
        } else if status >= 200, status != 204, status != 304 {
            while true {
                let before = buffer.count
                guard fill() else { break }
                body.append(contentsOf: buffer[before...])
            }
        }
        return .response(RawHTTPResponse(status: status, headers: headers, body: Data(body)))
    }

    /// Decodes a chunked body, pulling more bytes with `more` as needed.
    private static func dechunk(_ raw: inout [UInt8], more: () -> [UInt8]?) -> [UInt8] {
        var output: [UInt8] = []
        var position = 0
        func line() -> String? {
            while true {
                if let end = (position..<max(position, raw.count - 1)).first(where: { raw[$0] == 13 && raw[$0 + 1] == 10 }) {
                    let text = String(decoding: raw[position..<end], as: UTF8.self)
                    position = end + 2
                    return text
                }
                guard let next = more() else { return nil }
                raw.append(contentsOf: next)
            }
        }
        while let sizeLine = line(), let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16), size > 0 {
            while raw.count < position + size + 2 {
                guard let next = more() else { return output + raw[position...] }
                raw.append(contentsOf: next)
            }
            output += raw[position..<position + size]
            position += size + 2
        }
        return output
    }

    // MARK: Async entry points

    /// Sends `request` (the complete bytes: request line, headers, body) and reads the answer.
    static func exchange(port: Int, _ request: [UInt8]) async throws -> Outcome {
        try await offPool {
            let connection = try RawHTTPConnection(port: port)
            _ = connection.write(request)
            return connection.readResponse()
        }
    }

    /// Sends a request head built from `lines` (no trailing blank line needed) followed by `body`.
    static func exchange(port: Int, head lines: [String], body: [UInt8] = []) async throws -> Outcome {
        try await exchange(port: port, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body)
    }
}

/// A response read off a raw socket.
struct RawHTTPResponse: Sendable, CustomStringConvertible {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: Data

    /// The first value of header `name` (case-insensitive), `nil` when absent.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var description: String {
        "HTTP \(status) \(headers.map { "\($0.name): \($0.value.prefix(100))" }) \(String(decoding: body.prefix(300), as: UTF8.self))"
    }
}
