import Foundation
import WOPIHost

/// Where a PostgreSQL database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&host=…]`.
///
/// The form is libpq's connection URI (PostgreSQL manual §34.1.1, "Connection URIs"), restricted to
/// what the store needs: user, password, host (or a Unix socket directory in `?host=/dir`), port,
/// database name and `sslmode` (`disable`, `prefer`, `require`). Percent-escapes in the user and
/// password are decoded. The ``description`` never shows the password, so the value is safe to log
/// and to put in an error message.
public struct PostgresDatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection; the server's certificate is verified.
        case require
    }

    /// The role to sign in as.
    public var user: String
    /// The role's password, if the server asks for one.
    public var password: String?
    /// The server's host name or address; empty when ``socketDirectory`` is set.
    public var host: String
    /// The TCP port, or the number in the Unix socket's name (`.s.PGSQL.<port>`).
    public var port: Int
    /// The database.
    public var database: String
    /// A directory holding the server's Unix socket, from `?host=/dir`.
    public var socketDirectory: String?
    /// TLS use; defaults to `disable` for loopback and Unix sockets and to `require` for anything else.
    public var tls: TLSMode

    /// Why a URL was refused. The messages never contain the password.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with the URL, in one line.
        public let description: String
    }

    /// Parses a connection URL; throws ``ParseError`` naming what is wrong.
    public init(parsing text: String) throws {
        let usage = "expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw ParseError(description: "the database URL is not a URL (\(usage))")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw ParseError(description: "the database URL has scheme '\(scheme)'; only postgres:// is supported (\(usage))")
        }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw ParseError(description: "the database URL names no user (\(usage))")
        }
        let database = String(components.path.drop(while: { $0 == "/" })).removingPercentEncoding ?? ""
        guard !database.isEmpty, !database.contains("/") else {
            throw ParseError(description: "the database URL names no database (\(usage))")
        }
        var socketDirectory: String?
        var tls: TLSMode?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    throw ParseError(description: "the database URL's host= must be an absolute socket directory")
                }
                socketDirectory = value
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw ParseError(description: "the database URL's sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            default:
                throw ParseError(description: "the database URL has an unsupported parameter '\(item.name)' (supported: host, sslmode)")
            }
        }
        let host = components.host?.removingPercentEncoding ?? ""
        guard !host.isEmpty || socketDirectory != nil else {
            throw ParseError(description: "the database URL names no host (\(usage))")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw ParseError(description: "the database URL's port must be between 1 and 65535") }
        self.user = user
        self.password = components.password.flatMap { $0.removingPercentEncoding }
        self.host = host
        self.port = port
        self.database = database
        self.socketDirectory = socketDirectory
        self.tls = tls ?? (socketDirectory != nil || Self.isLoopback(host) ? .disable : .require)
    }

    /// The URL with the password masked: `postgres://wopi:***@db.example:5432/wopi`.
    public var description: String {
        let credentials = password == nil ? user : "\(user):***"
        let location = socketDirectory.map { "localhost:\(port)/\(database)?host=\($0)" } ?? "\(hostForURL):\(port)/\(database)"
        return "postgres://\(credentials)@\(location)"
    }

    /// Where to connect, for messages: `host:port` or the socket path.
    public var endpoint: String { socketPath ?? "\(hostForURL):\(port)" }

    /// The Unix socket file, when connecting through one.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    private var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
