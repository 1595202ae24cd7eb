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

    /// A port the kernel considers free: bind to port 0 on 127.0.0.1 and read back what it chose.
    public static func free() throws -> Int {
        let fd = makeSocket()
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure(description: "bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        let fd = makeSocket()
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: UInt16(port))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }

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
