import Foundation
import Logging
import NIOCore
import PostgresNIO
import WOPIHost
import WOPIStoreSQL

/// A transaction's statements on one PostgreSQL connection, `?` parameters sent as `$1`, `$2`, ….
public struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger

    /// Every row `statement` reads, inside the transaction.
    public func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        try connection.ensureOpen()
        var rows: [SQLRow] = []
        for try await row in try await connection.query(Self.query(statement), logger: logger) { rows.append(try Self.row(row)) }
        return rows
    }

    /// Runs `statement` inside the transaction.
    public func execute(_ statement: SQLStatement) async throws {
        try connection.ensureOpen()
        try await connection.query(Self.query(statement), logger: logger)
    }

    private static func query(_ statement: SQLStatement) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: statement.values.count)
        for value in statement.values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .bool(let bool): bindings.append(bool)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return PostgresQuery(unsafeSQL: statement.text { "$\($0)" }, binds: bindings)
    }

    /// A row's cells as the storage classes both databases share; `boolean` reads as 0 or 1.
    static func row(_ row: PostgresRow) throws -> SQLRow {
        SQLRow(try row.map { cell -> SQLValue in
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
            case .float8, .float4: return .real(try cell.decode(Double.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea: return .blob([UInt8](buffer: try cell.decode(ByteBuffer.self)))
            default: return .text(try cell.decode(String.self))
            }
        })
    }
}

/// The rules written once above the drivers run on PostgreSQL through these.
extension PostgresStore: SQLStore, AuthorizationStore, WebSessionStore, AuditStore, SignInFailureStore, TemplateOriginStore,
    IdentityLinkStore {
    /// PostgreSQL's SQL: names compared through `wopi_fold()`, rows locked with `FOR UPDATE` as they are read.
    public var dialect: SQLDialect { .postgres }

    /// From now on one unanswered probe of the server is an outage, not the third in a row: the last appends of a host
    /// whose database has just gone fail within about a second, and the host stops.
    public func hostIsStopping() {
        connections.hostIsStopping()
    }

    /// Runs `body` in one transaction on one connection of the pool.
    public func transaction<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        try await transaction { (connection: PostgresConnection) in try await body(PostgresSession(connection: connection, logger: logger)) }
    }

    /// Runs `body` on one connection of the pool, outside a transaction.
    public func read<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        try await connections.run { client in
            try await client.withConnection { connection in try await body(PostgresSession(connection: connection, logger: logger)) }
        }
    }

    /// Whether `error` is PostgreSQL's unique violation (SQLSTATE 23505).
    public func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.isUniqueViolation ?? false
    }
}
