import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stand-in host on a raw 127.0.0.1 socket that fails below HTTP's level, the way hosts met in the
/// field do: it resets the connection, never answers, answers an HTML page, or sends an endless body.
/// Each connection is served on a thread of its own; every request head it read is kept.
final class MisbehavingHost: @unchecked Sendable {
    enum Behaviour: Sendable {
        /// Reads the request, then closes with a TCP reset.
        case reset
        /// Reads the request and never answers.
        case hang
        /// Answers every request 200 with an HTML page (a sign-in page, a proxy's error page).
        case html
        /// Answers 200 with a chunked body that never ends, until the client goes.
        case endless
    }

    static let htmlPage = "<!doctype html><html><head><title>Sign in</title></head><body><form action=\"/login\">Please sign in</form></body></html>"

    let port: Int
    private let behaviour: Behaviour
    private let listener: Int32
    // Guarded by `lock`.
    private let lock = NSLock()
    private var stopped = false
    private var open: [Int32] = []
    private var heads: [String] = []

    private init(behaviour: Behaviour) throws {
        self.behaviour = behaviour
        (listener, port) = try LocalPort.listener(backlog: 16)
    }

    var wopiSrc: String { "http://127.0.0.1:\(port)/wopi/files/F1" }

    /// Every request head read so far.
    var requests: [String] {
        lock.lock()
        defer { lock.unlock() }
        return heads
    }

    static func withRunning<T: Sendable>(_ behaviour: Behaviour, _ body: (MisbehavingHost) async throws -> T) async throws -> T {
        let host = try MisbehavingHost(behaviour: behaviour)
        let thread = Thread { host.acceptLoop() }
        thread.start()
        defer { host.stop() }
        return try await body(host)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            lock.lock()
            let isStopped = stopped
            if !isStopped { open.append(connection) }
            lock.unlock()
            if isStopped {
                close(connection)
                return
            }
            Thread { self.serve(connection) }.start()
        }
    }

    private func stop() {
        lock.lock()
        stopped = true
        let connections = open
        open = []
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func serve(_ connection: Int32) {
        guard let head = readHead(connection) else { return }
        lock.lock()
        heads.append(head)
        lock.unlock()
        switch behaviour {
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(connection)
        case .hang:
            // Kept open until the test ends; the client must give up on its own.
            var byte: UInt8 = 0
            while !isStopped, recv(connection, &byte, 1, 0) > 0 {}
        case .html:
            let body = Data(Self.htmlPage.utf8)
            _ = write(connection, Data("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body)
            close(connection)
        case .endless:
            guard write(connection, Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else { return }
            let payload = Data(repeating: 0x20, count: 1 << 20)
            let chunk = Data("\(String(payload.count, radix: 16))\r\n".utf8) + payload + Data("\r\n".utf8)
            while !isStopped, write(connection, chunk) {}
            close(connection)
        }
    }

    /// The request head, up to the blank line; `nil` when the client went first.
    private func readHead(_ connection: Int32) -> String? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(Data("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func write(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(connection, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }
}
