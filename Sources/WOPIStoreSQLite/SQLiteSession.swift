import Foundation
import GRDB
import WOPIStoreSQL

/// A transaction's statements on SQLite's writer connection, each one access of GRDB's writer queue
/// (`StoreDatabasePool.transaction(_:)` holds the transaction open between them).
public struct SQLiteSession: SQLSession {
    let pool: DatabasePool

    /// Every row `statement` reads, inside the transaction.
    public func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        let (sql, arguments) = Self.prepared(statement)
        return try await pool.writeWithoutTransaction { db in try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.row) }
    }

    /// Runs `statement` inside the transaction.
    public func execute(_ statement: SQLStatement) async throws {
        let (sql, arguments) = Self.prepared(statement)
        try await pool.writeWithoutTransaction { db in try db.execute(sql: sql, arguments: arguments) }
    }

    private static func prepared(_ statement: SQLStatement) -> (String, StatementArguments) {
        let values: [(any DatabaseValueConvertible)?] = statement.values.map { value in
            switch value {
            case .null: nil
            case .integer(let integer): integer
            case .real(let real): real
            case .text(let text): text
            case .blob(let bytes): Data(bytes)
            }
        }
        return (statement.text { _ in "?" }, StatementArguments(values))
    }

    private static func row(_ row: Row) -> SQLRow {
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
extension SQLiteStore: SQLStore {
    /// SQLite's SQL: names compared with `COLLATE NOCASE`, no row locks (a write transaction holds the database).
    public var dialect: SQLDialect { .sqlite }

    /// Runs `body` in one immediate transaction (see `StoreDatabasePool.transaction(_:)`).
    public func transaction<Result: Sendable>(_ body: (SQLiteSession) async throws -> Result) async throws -> Result {
        try await pool.transaction(body)
    }

    /// Whether `error` is SQLite's unique constraint failing.
    public func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
    }
}
