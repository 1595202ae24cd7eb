import Foundation
import GRDB
import WOPIHost
import WOPIStoreSQL

/// A transaction's statements on SQLite's writer connection, each run on the calling thread
/// (`StoreDatabasePool.transaction(_:)` holds the transaction open between them); or, for a read, each
/// statement on a reader connection of its own.
public struct SQLiteSession: SQLSession {
    let pool: StoreDatabasePool
    let reads: Bool

    /// Every row `statement` reads, inside the transaction.
    public func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        let (sql, arguments) = Self.prepared(statement)
        return try await access { db in try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.row) }
    }

    /// Runs `statement` inside the transaction.
    public func execute(_ statement: SQLStatement) async throws {
        let (sql, arguments) = Self.prepared(statement)
        try await access { db in try db.execute(sql: sql, arguments: arguments) }
    }

    private func access<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        reads ? try await pool.read(body) : try onWriter(body)
    }

    /// `body` on the writer connection, synchronously (GRDB's `writeWithoutTransaction` has an asynchronous twin).
    private func onWriter<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.base.writeWithoutTransaction(body)
    }

    private static func prepared(_ statement: SQLStatement) -> (String, StatementArguments) {
        let values: [(any DatabaseValueConvertible)?] = statement.values.map { value in
            switch value {
            case .null: nil
            case .integer(let integer): integer
            case .bool(let bool): bool
            case .real(let real): real
            case .text(let text): text
            case .blob(let bytes): Data(bytes)
            }
        }
        return (statement.text { _ in "?" }, StatementArguments(values))
    }

    /// A row's values as the storage classes both databases share.
    static func row(_ row: Row) -> SQLRow {
        SQLRow(row.databaseValues.map { value in
            switch value.storage {
            case .null: .null
            case .int64(let integer): .integer(integer)
            case .double(let real): .real(real)
            case .string(let text): .text(text)
            case .blob(let data): .blob([UInt8](data))
            }
        })
    }
}

/// The rules written once above the drivers run on SQLite through these.
extension SQLiteStore: SQLStore, AuthorizationStore, WebSessionStore, AuditStore, SignInFailureStore, TemplateOriginStore,
    IdentityLinkStore {
    /// SQLite's SQL: names compared with `COLLATE NOCASE`, no row locks (a write transaction holds the database).
    public var dialect: SQLDialect { .sqlite }

    /// Runs `body` in one immediate transaction (see `StoreDatabasePool.transaction(_:)`).
    public func transaction<Result: Sendable>(_ body: (SQLiteSession) async throws -> Result) async throws -> Result {
        try await pool.transaction(body)
    }

    /// Runs `body` with each statement on a reader connection, beside the writer.
    public func read<Result: Sendable>(_ body: (SQLiteSession) async throws -> Result) async throws -> Result {
        try await body(SQLiteSession(pool: pool, reads: true))
    }

    /// Whether `error` is SQLite's unique constraint failing.
    public func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
    }
}
