import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP forwarder on 127.0.0.1 in front of an S3 server that makes it report every multipart upload as started in
/// 2010, as some servers do: the year after each `<Initiated>` in its answers becomes 2010. The rewrite keeps the
/// length, so `Content-Length` and chunk sizes stay right, and requests pass unchanged, so their signatures hold.
/// Each connection is forwarded by two threads of its own.
final class InitiatedRewritingProxy: @unchecked Sendable {
    let port: Int
    private let target: Int
    private let listener: Int32
    // Guarded by `lock`.
    private let lock = NSLock()
    private var stopped = false
    private var open: [Int32] = []
    private var rewrites = 0

    static let marker = Array("<Initiated>".utf8)
    static let year = Array("2010".utf8)

    private init(target: Int) throws {
        self.target = target
        (listener, port) = try LocalPort.listener(backlog: 16)
    }

    /// How many `<Initiated>` years it has rewritten so far.
    var rewritten: Int {
        lock.lock()
        defer { lock.unlock() }
        return rewrites
    }

    /// Runs `body` with a proxy in front of `target`, stopped afterwards.
    static func withRunning<T: Sendable>(target: Int, _ body: (InitiatedRewritingProxy) async throws -> T) async throws -> T {
        let proxy = try InitiatedRewritingProxy(target: target)
        Thread { proxy.acceptLoop() }.start()
        defer { proxy.stop() }
        return try await body(proxy)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard let server = try? LocalPort.connection(to: target, timeout: 600) else {
                close(client)
                continue
            }
            guard track([client, server]) else {
                close(client)
                close(server)
                return
            }
            Thread { self.forward(from: client, to: server, rewriting: false) }.start()
            Thread { self.forward(from: server, to: client, rewriting: true) }.start()
        }
    }

    /// Remembers sockets to shut down at the end; `false` once stopped.
    private func track(_ sockets: [Int32]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return false }
        open += sockets
        return true
    }

    private func stop() {
        lock.lock()
        stopped = true
        let sockets = open
        open = []
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Copies bytes until either side closes; with `rewriting`, holds back a tail that may be the start of a marker
    /// and its year, until the next bytes show whether it is.
    private func forward(from source: Int32, to destination: Int32, rewriting: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending += buffer[0..<count]
            var ready = pending.count
            if rewriting {
                rewrite(&pending)
                ready = pending.count - Self.heldBack(pending)
            }
            guard send(all: pending[0..<ready], to: destination) else { break }
            pending.removeFirst(ready)
        }
        _ = send(all: pending[...], to: destination)
        shutdown(destination, Int32(SHUT_WR))
    }

    /// Replaces the four digits after each complete marker with 2010.
    private func rewrite(_ bytes: inout [UInt8]) {
        let length = Self.marker.count + 4
        var index = 0
        var count = 0
        while index + length <= bytes.count {
            if bytes[index..<(index + Self.marker.count)].elementsEqual(Self.marker) {
                let start = index + Self.marker.count
                if bytes[start..<(start + 4)].allSatisfy({ (0x30...0x39).contains($0) }), !bytes[start..<(start + 4)].elementsEqual(Self.year) {
                    bytes.replaceSubrange(start..<(start + 4), with: Self.year)
                    count += 1
                }
                index = start + 4
            } else {
                index += 1
            }
        }
        if count > 0 {
            lock.lock()
            rewrites += count
            lock.unlock()
        }
    }

    /// How many bytes at the end could begin a marker and its year not yet complete.
    static func heldBack(_ bytes: [UInt8]) -> Int {
        let length = marker.count + 4
        for size in stride(from: min(length - 1, bytes.count), to: 0, by: -1) {
            let tail = bytes[(bytes.count - size)...]
            let matches = tail.enumerated().allSatisfy { offset, byte in
                offset < marker.count ? byte == marker[offset] : (0x30...0x39).contains(byte)
            }
            if matches { return size }
        }
        return 0
    }

    private func send(all bytes: ArraySlice<UInt8>, to socket: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }
}
