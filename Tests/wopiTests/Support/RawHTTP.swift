import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking HTTP/1.1 client on a raw 127.0.0.1 socket, for tests that must send what ordinary
/// clients will not (a 64 KiB header) or stop half-way through a body (a PutFile in flight).
///
/// `@unchecked Sendable` so that its blocking calls can run off the cooperative pool: a test uses one
/// connection from one task at a time.
final class RawHTTPConnection: @unchecked Sendable {
    struct Response: Sendable, CustomStringConvertible {
        let status: Int
        let headers: [(String, String)]
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1 }
        var description: String { "HTTP \(status) \(headers) \(text.prefix(300))" }
    }

    enum Failure: Error, CustomStringConvertible {
        case noResponse(String)
        var description: String {
            switch self {
            case .noResponse(let what): "no response to \(what)"
            }
        }
    }

    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; a send or receive that waits `timeout` seconds fails.
    init(port: Int, timeout: Int = 60) throws {
        descriptor = try LocalPort.connection(to: port, timeout: timeout)
    }

    deinit { close(descriptor) }

    /// Writes everything; `false` once the peer is gone.
    @discardableResult
    func write(_ data: Data) -> Bool {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        return data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(descriptor, raw.baseAddress! + offset, raw.count - offset, flags)
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Writes everything, waiting on a thread of its own rather than on one of the cooperative pool's;
    /// `false` once the peer is gone.
    @discardableResult
    func write(_ data: Data) async throws -> Bool {
        try await offPool { self.write(data) }
    }

    /// Whether the peer has closed the connection: a non-blocking read sees end of file (not "no data yet").
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
            if count < 0, errno == EINTR { continue }
            return count == 0
        }
    }

    /// Reads one response, framed by its Content-Length when it has one (so a kept-alive connection
    /// works too), otherwise up to the end of the stream.
    func readResponse() -> Response? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        func fill() -> Bool {
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
        }
        let separator = Data("\r\n\r\n".utf8)
        var range = buffer.range(of: separator)
        while range == nil {
            guard fill() else { return nil }
            range = buffer.range(of: separator)
        }
        guard let range else { return nil }
        var lines = String(decoding: buffer[..<range.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers: [(String, String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let bodyStart = range.upperBound
        let length = headers.first { $0.0.caseInsensitiveCompare("Content-Length") == .orderedSame }.flatMap { Int($0.1) }
        while length.map({ buffer.count - bodyStart < $0 }) ?? true {
            guard fill() else { break }
        }
        let body = Data(buffer[bodyStart...])
        return Response(status: status, headers: headers, body: length.map { Data(body.prefix($0)) } ?? body)
    }

    /// Reads one response as the blocking ``readResponse()`` does, waiting on a thread of its own rather than
    /// on one of the cooperative pool's.
    func readResponse() async throws -> Response? {
        try await offPool { self.readResponse() }
    }

    /// The request head: request line, Host, Connection: close, Content-Length and `headers`.
    static func head(_ method: String, _ target: String, _ headers: [String], contentLength: Int) -> Data {
        Data(((["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1", "Connection: close", "Content-Length: \(contentLength)"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// One request on its own connection, waiting on a thread of its own rather than on one of the
    /// cooperative pool's, which in-process hosts need to answer.
    static func request(port: Int, _ method: String, _ target: String, _ headers: [String] = [], body: Data = Data()) async throws -> Response {
        try await offPool { try request(port: port, method, target, headers, body: body) }
    }

    /// One request on its own connection.
    private static func request(port: Int, _ method: String, _ target: String, _ headers: [String] = [], body: Data = Data()) throws -> Response {
        let connection = try RawHTTPConnection(port: port)
        connection.write(head(method, target, headers, contentLength: body.count) + body)
        guard let response = connection.readResponse() else { throw Failure.noResponse("\(method) \(target.prefix(60))") }
        return response
    }
}
