import Foundation
import WOPICore
import WOPIHost

/// One row a statement read, its columns in the order the statement names them.
///
/// A value of the wrong kind is damage (a hand-edited database), reported as `StoredValueError`.
public struct SQLRow: Sendable {
    public let values: [SQLValue]

    public init(_ values: [SQLValue]) {
        self.values = values
    }

    public func text(_ index: Int) throws -> String {
        guard case .text(let text) = values[index] else { throw damage(index) }
        return text
    }

    public func optionalText(_ index: Int) throws -> String? { try unlessNull(index, text) }

    public func integer(_ index: Int) throws -> Int64 {
        guard case .integer(let value) = values[index] else { throw damage(index) }
        return value
    }

    public func optionalInteger(_ index: Int) throws -> Int64? { try unlessNull(index, integer) }

    public func blob(_ index: Int) throws -> [UInt8] {
        guard case .blob(let bytes) = values[index] else { throw damage(index) }
        return bytes
    }

    /// A number; SQLite hands back a `REAL` that holds a whole number as an integer.
    public func real(_ index: Int) throws -> Double {
        switch values[index] {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: throw damage(index)
        }
    }

    /// A truth value: SQLite's 0 or 1, PostgreSQL's `boolean` (which its session reads as 0 or 1).
    public func bool(_ index: Int) throws -> Bool {
        if case .bool(let value) = values[index] { return value }
        return try integer(index) != 0
    }

    public func date(_ index: Int) throws -> Date { Date(timeIntervalSince1970: try real(index)) }

    public func optionalDate(_ index: Int) throws -> Date? { try unlessNull(index, date) }

    public func id(_ index: Int, column: String) throws -> ResourceID { try .stored(text(index), column: column) }

    public func optionalID(_ index: Int, column: String) throws -> ResourceID? { try optionalText(index).storedID(column: column) }

    /// `nil` for a `NULL`, the value `read` reads otherwise.
    private func unlessNull<Value>(_ index: Int, _ read: (Int) throws -> Value) rethrows -> Value? {
        if case .null = values[index] { return nil }
        return try read(index)
    }

    private func damage(_ index: Int) -> StoredValueError {
        StoredValueError(column: "row column \(index + 1)", value: "\(values[index])")
    }
}
