import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP ports on 127.0.0.1 for servers a test starts.
public enum LocalPort {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A port free on 127.0.0.1 for a server that binds it later.
    ///
    /// It comes from below the kernel's ephemeral range (`ip_local_port_range`): a port the kernel chose there
    /// is one it also gives to outgoing connections, and any connection a test makes before the server binds
    /// can take it. Below that range only a bind takes a port. Where the range starts too low for that, the
    /// kernel chooses.
    public static func free() throws -> Int {
        let candidates = 10_000..<ephemeralRangeStart()
        if candidates.count >= 1_000 {
            for _ in 0..<64 {
                guard let (fd, port) = try? bound(port: Int.random(in: candidates), reuseAddress: false) else { continue }
                close(fd)
                return port
            }
        }
        let (fd, port) = try bound()
        close(fd)
        return port
    }

    /// The first port of the range the kernel takes outgoing connections' ports from (32768 where unknown).
    private static func ephemeralRangeStart() -> Int {
        #if os(Linux)
        if let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
           let first = range.split(whereSeparator: \.isWhitespace).first.flatMap({ Int($0) }) {
            return first
        }
        #endif
        return 32_768
    }

    /// A socket listening on a free 127.0.0.1 port, queueing up to `backlog` connections nobody accepted
    /// yet; the caller accepts on it and closes it.
    /// `port` 0 lets the kernel choose; another port is taken over once its last listener has gone
    /// (SO_REUSEADDR: its old connections may still linger).
    public static func listener(port: Int = 0, backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let (fd, port) = try bound(port: port)
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "listen() failed: \(describe(code))")
        }
        return (fd, port)
    }

    /// A socket bound to `port` (0: one the kernel chooses) on 127.0.0.1, and the port it is bound to.
    private static func bound(port: Int = 0, reuseAddress: Bool = true) throws -> (descriptor: Int32, port: Int) {
        let fd = makeSocket()
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(describe(errno))") }
        if port != 0, reuseAddress {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopback(port: UInt16(port))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let failed: String? = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                if bind(fd, pointer, length) != 0 { return "bind" }
                return getsockname(fd, pointer, &length) != 0 ? "getsockname" : nil
            }
        }
        if let failed {
            let code = errno
            close(fd)
            throw Failure(description: "\(failed)() failed: \(describe(code))")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        guard let fd = try? connection(to: port, timeout: 5) else { return false }
        close(fd)
        return true
    }

    /// Whether process `processID` itself listens on `port`, not merely something.
    ///
    /// A port from ``free()`` is only free when asked: until the server binds it, another test's server may
    /// take it, and then the server that was started exits while the other one answers. On Linux this reads
    /// the listening sockets of /proc/net/tcp and tcp6 (any address: chromedriver listens on `::`) and looks
    /// for one among the process's descriptors; elsewhere it falls back to ``accepts(_:)``.
    public static func isListening(_ port: Int, processID: pid_t) -> Bool {
        #if os(Linux)
        // Connecting first is cheap; the tables are read once something answers.
        guard accepts(port) else { return false }
        let suffix = String(format: ":%04X", port)
        let listening = Set(sockets().filter { $0.state == "0A" && $0.local.hasSuffix(suffix) }.map { "socket:[\($0.inode)]" })
        guard !listening.isEmpty else { return false }
        let descriptors = "/proc/\(processID)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
        return entries.contains { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\(entry)")).map(listening.contains) ?? false
        }
        #else
        return accepts(port)
        #endif
    }

    /// A socket connected to 127.0.0.1:`port` whose reads and writes time out after `timeout` seconds;
    /// the caller closes it.
    ///
    /// With a send timeout set, a signal (a child's SIGCHLD) makes `connect` fail with EINTR even under
    /// SA_RESTART (signal(7)) while the handshake goes on in the kernel; this waits for its outcome instead.
    public static func connection(to port: Int, timeout: Int = 60) throws -> Int32 {
        let fd = makeSocket()
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(describe(errno))") }
        var interval = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = loopback(port: UInt16(port))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var code = connected == 0 ? 0 : errno
        if code == EINTR || code == EINPROGRESS { code = outcome(of: fd, timeout: timeout) }
        guard code == 0 else {
            close(fd)
            throw Failure(description: "could not connect to 127.0.0.1:\(port): \(describe(code))")
        }
        return fd
    }

    /// The result of a connection attempt still under way on `fd`: 0 or an errno.
    private static func outcome(of fd: Int32, timeout: Int) -> Int32 {
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let deadline = Date().addingTimeInterval(Double(timeout))
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            let ready = poll(&waiting, 1, left)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { return errno }
            if ready == 0 { return ETIMEDOUT }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
            return code
        }
    }

    /// A TCP socket of this network namespace, as /proc/net/tcp and tcp6 list it: addresses as `HEXADDRESS:HEXPORT`,
    /// the state in hex (`02` SYN_SENT, `0A` LISTEN).
    public struct Socket {
        public let local: Substring
        public let remote: Substring
        public let state: Substring
        public let inode: Substring
    }

    /// Every TCP socket of this network namespace, IPv4 and IPv6 (empty where /proc does not exist).
    public static func sockets() -> [Socket] {
        ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { path -> [Socket] in
            // Read whole: Foundation's file readers stop after the first page a file of /proc hands out, and
            // with a busy suite the table runs to hundreds of kilobytes.
            guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
            defer { try? handle.close() }
            let table = String(decoding: PipeReader.readToEnd(handle), as: UTF8.self)
            return table.split(separator: "\n").dropFirst().compactMap { line in
                // sl, local address, remote address, state, queues, timer, retransmits, uid, timeout, inode, …
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { return nil }
                return Socket(local: fields[1], remote: fields[2], state: fields[3], inode: fields[9])
            }
        }
    }

    private static func describe(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }

    private static func makeSocket() -> Int32 {
        #if os(Linux)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        return socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if !os(Linux)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
