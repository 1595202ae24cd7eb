import WOPICore

/// A value a store wrote cannot be read back: a damaged or hand-edited database.
///
/// Stores report it rather than invent a placeholder, so a bad row fails its request (500) and is logged
/// instead of surfacing as a file nobody can open.
public struct StoredValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The table and column, as `table.column`.
    public var column: String
    /// The value found, cut to 64 characters.
    public var value: String

    /// A value that could not be read from `column`.
    public init(column: String, value: String) {
        self.column = column
        self.value = String(value.prefix(64))
    }

    /// One line naming the column and the value.
    public var description: String { "the database holds an unreadable value in \(column): '\(value)'" }
}

extension ResourceID {
    /// An id a store reads back; ids are validated before they are written, so one that does not parse is damage.
    package static func stored(_ text: String, column: String) throws -> ResourceID {
        guard let id = ResourceID(text) else { throw StoredValueError(column: column, value: text) }
        return id
    }
}

extension Optional where Wrapped == String {
    /// An optional id a store reads back: `nil` stays `nil`, a value that does not parse is damage.
    package func storedID(column: String) throws -> ResourceID? {
        try map { try ResourceID.stored($0, column: column) }
    }
}

extension BlobKey {
    /// A body key a store reads back; one that does not parse is damage.
    package static func stored(_ text: String, column: String) throws -> BlobKey {
        guard let key = BlobKey(text) else { throw StoredValueError(column: column, value: text) }
        return key
    }
}

extension AccessRole {
    /// A share role a store reads back; an unknown one is damage, never a silent downgrade.
    package static func stored(_ text: String, column: String) throws -> AccessRole {
        guard let role = AccessRole(rawValue: text) else { throw StoredValueError(column: column, value: text) }
        return role
    }
}

extension ShareRecord.ItemKind {
    /// An item kind a store reads back; an unknown one is damage.
    package static func stored(_ text: String, column: String) throws -> ShareRecord.ItemKind {
        guard let kind = ShareRecord.ItemKind(rawValue: text) else { throw StoredValueError(column: column, value: text) }
        return kind
    }
}
