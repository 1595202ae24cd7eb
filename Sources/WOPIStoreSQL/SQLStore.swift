import Foundation
import WOPIHost

/// What a store's rules need from a database inside one transaction: rows, and statements run.
public protocol SQLSession {
    /// Every row `statement` reads.
    func rows(_ statement: SQLStatement) async throws -> [SQLRow]
    /// Runs `statement`, whose rows (if any) do not matter.
    func execute(_ statement: SQLStatement) async throws
}

extension SQLSession {
    /// The first row `statement` reads, if any.
    public func first(_ statement: SQLStatement) async throws -> SQLRow? { try await rows(statement).first }
}

/// Where SQLite's and PostgreSQL's SQL differ in what the rules say.
public struct SQLDialect: Sendable {
    /// Whether a `SELECT` takes row locks (PostgreSQL); SQLite's write transaction holds the whole database.
    public var locksRows: Bool
    /// `column` compared with `name` as the stores compare names: ASCII letters without regard to case.
    public var sameName: @Sendable (_ column: String, _ name: String) -> SQLStatement
    /// An `ORDER BY` list that sorts rows by `column` as names compare, ties by `id`.
    public var byName: @Sendable (_ column: String) -> String
    /// `column` sorting after `name` in the order of ``byName``.
    public var nameAfter: @Sendable (_ column: String, _ name: String) -> SQLStatement
    /// One statement that takes the next number of the store-wide file version sequence and reads it.
    public var nextVersion: SQLStatement
    /// The aggregate that joins a group's `column` values with single spaces.
    public var spaceSeparated: @Sendable (_ column: String) -> String

    /// Appended to a `SELECT` whose rows the transaction goes on to change (those of `table` in a join).
    public func forUpdate(of table: String? = nil) -> String {
        locksRows ? " FOR UPDATE" + (table.map { " OF \($0)" } ?? "") : ""
    }

    /// Appended to a `SELECT` whose rows must not change before the transaction ends.
    public var forShare: String { locksRows ? " FOR SHARE" : "" }

    public static let sqlite = SQLDialect(
        locksRows: false, sameName: { column, name in "\(unescaped: column) = \(name) COLLATE NOCASE" },
        byName: { "\($0) COLLATE NOCASE, id" },
        nameAfter: { column, name in "\(unescaped: column) > \(name) COLLATE NOCASE" },
        nextVersion: "UPDATE version_counter SET value = value + 1 WHERE id = 1 RETURNING value",
        spaceSeparated: { "group_concat(\($0), ' ')" })

    public static let postgres = SQLDialect(
        locksRows: true, sameName: { column, name in "wopi_fold(\(unescaped: column)) = wopi_fold(\(name))" },
        byName: { "wopi_fold(\($0)) COLLATE \"C\", id" },
        nameAfter: { column, name in "wopi_fold(\(unescaped: column)) COLLATE \"C\" > wopi_fold(\(name)) COLLATE \"C\"" },
        nextVersion: "SELECT nextval('file_version_numbers')",
        spaceSeparated: { "string_agg(\($0), ' ')" })
}

/// A store whose rules are written once, in SQL both databases run, above a driver's transactions.
///
/// A driver provides ``transaction(_:)``, its ``dialect`` and how it reports a unique violation; the
/// extensions of this protocol implement the store's requirements on them.
public protocol SQLStore: WOPIStore {
    associatedtype Session: SQLSession

    var dialect: SQLDialect { get }

    /// Runs `body` in one transaction that no other writer interleaves with: committed when it returns,
    /// rolled back when it throws, with the error `body` threw reaching the caller.
    func transaction<Result: Sendable>(_ body: (Session) async throws -> Result) async throws -> Result

    /// Runs `body`'s reads without taking the write lock; each statement sees what was committed when it began.
    func read<Result: Sendable>(_ body: (Session) async throws -> Result) async throws -> Result

    /// Whether `error` is a unique constraint's violation (a concurrent writer took a name).
    func isUniqueViolation(_ error: any Error) -> Bool
}

extension SQLStore {
    /// Every row of one read.
    public func rows(_ statement: SQLStatement) async throws -> [SQLRow] { try await read { try await $0.rows(statement) } }

    /// The first row of one read, if any.
    public func first(_ statement: SQLStatement) async throws -> SQLRow? { try await rows(statement).first }

    /// Runs one statement in a transaction of its own; returns the rows it reads (`RETURNING`).
    @discardableResult
    public func write(_ statement: SQLStatement) async throws -> [SQLRow] { try await transaction { try await $0.rows(statement) } }
}
