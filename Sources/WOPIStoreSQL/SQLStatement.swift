import Foundation
import WOPICore

/// A value bound to, or read from, a statement: the storage classes SQLite and PostgreSQL share.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    /// A truth value: PostgreSQL's `boolean`, SQLite's 0 or 1.
    case bool(Bool)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// SQL text with its values bound where they are written: `"… WHERE id = \(id)"` binds `id` as a
/// parameter, it never splices it into the text; `\(unescaped:)` splices text the store wrote itself.
public struct SQLStatement: Sendable, ExpressibleByStringInterpolation {
    /// The text around the parameters: one more part than there are values.
    public private(set) var parts: [String]
    public private(set) var values: [SQLValue]

    public init(stringLiteral text: String) {
        parts = [text]
        values = []
    }

    public init(stringInterpolation: Interpolation) {
        parts = stringInterpolation.parts
        values = stringInterpolation.values
    }

    /// `statements` one after the other, `separator` between them (a list of rows, of conditions).
    public init(joining statements: some Sequence<SQLStatement>, separator: String) {
        var joined = Interpolation(literalCapacity: 0, interpolationCount: 0)
        for (index, statement) in statements.enumerated() {
            if index > 0 { joined.appendLiteral(separator) }
            joined.appendInterpolation(statement)
        }
        self.init(stringInterpolation: joined)
    }

    /// The text with each parameter written by `placeholder` from its position (from 1): `?` for SQLite,
    /// `$1`, `$2`, … for PostgreSQL.
    public func text(placeholder: (Int) -> String) -> String {
        var text = parts[0]
        for (index, part) in parts.dropFirst().enumerated() {
            text += placeholder(index + 1) + part
        }
        return text
    }

    public struct Interpolation: StringInterpolationProtocol {
        fileprivate var parts = [""]
        fileprivate var values: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { parts[parts.count - 1] += literal }

        public mutating func appendInterpolation(_ value: SQLValue) {
            values.append(value)
            parts.append("")
        }

        public mutating func appendInterpolation(_ value: String?) { appendInterpolation(value.map(SQLValue.text) ?? .null) }
        public mutating func appendInterpolation(_ value: Int64?) { appendInterpolation(value.map(SQLValue.integer) ?? .null) }
        public mutating func appendInterpolation(_ value: Int?) { appendInterpolation(value.map { SQLValue.integer(Int64($0)) } ?? .null) }
        public mutating func appendInterpolation(_ value: Bool) { appendInterpolation(SQLValue.bool(value)) }
        public mutating func appendInterpolation(_ value: Double?) { appendInterpolation(value.map(SQLValue.real) ?? .null) }
        /// Times are stored as seconds since 1970 (SQLite `REAL`, PostgreSQL `double precision`).
        public mutating func appendInterpolation(_ value: Date?) { appendInterpolation(value?.timeIntervalSince1970) }
        public mutating func appendInterpolation(_ value: ResourceID?) { appendInterpolation(value?.rawValue) }
        public mutating func appendInterpolation(_ value: Data?) { appendInterpolation(value.map { SQLValue.blob([UInt8]($0)) } ?? .null) }

        /// Another statement, its values bound in place.
        public mutating func appendInterpolation(_ fragment: SQLStatement) {
            parts[parts.count - 1] += fragment.parts[0]
            parts.append(contentsOf: fragment.parts.dropFirst())
            values.append(contentsOf: fragment.values)
        }

        /// Text the store wrote itself (a column list, a dialect's clause), never a caller's value.
        public mutating func appendInterpolation(unescaped text: String) { parts[parts.count - 1] += text }
    }
}
