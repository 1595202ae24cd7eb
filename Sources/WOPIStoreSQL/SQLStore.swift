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

    /// Appended to a `SELECT` whose rows the transaction goes on to change (those of `table` in a join).
    public func forUpdate(of table: String? = nil) -> String {
        locksRows ? " FOR UPDATE" + (table.map { " OF \($0)" } ?? "") : ""
    }

    /// Appended to a `SELECT` whose rows must not change before the transaction ends.
    public var forShare: String { locksRows ? " FOR SHARE" : "" }

    public static let sqlite = SQLDialect(locksRows: false) { column, name in
        "\(unescaped: column) = \(name) COLLATE NOCASE"
    }

    public static let postgres = SQLDialect(locksRows: true) { column, name in
        "wopi_fold(\(unescaped: column)) = wopi_fold(\(name))"
    }
}

/// A store whose rules are written once, in SQL both databases run, above a driver's transactions.
///
/// A driver provides ``transaction(_:)``, its ``dialect`` and how it reports a unique violation; the
/// extensions of this protocol implement the store's requirements on them.
public protocol SQLStore: Sendable {
    associatedtype Session: SQLSession

    var dialect: SQLDialect { get }

    /// Runs `body` in one transaction that no other writer interleaves with: committed when it returns,
    /// rolled back when it throws, with the error `body` threw reaching the caller.
    func transaction<Result: Sendable>(_ body: (Session) async throws -> Result) async throws -> Result

    /// Whether `error` is a unique constraint's violation (a concurrent writer took a name).
    func isUniqueViolation(_ error: any Error) -> Bool
}
