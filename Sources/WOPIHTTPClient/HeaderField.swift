/// One HTTP header field as it travels, name and value unchanged (RFC 9110 §5).
public struct HeaderField: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The field name, in the case it was sent or received.
    public let name: String
    /// The field value.
    public let value: String

    /// Creates a header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`.
    public var description: String { "\(name): \(value)" }
}

extension Array where Element == HeaderField {
    /// The value of header `name` (case-insensitive); repeated fields are joined with ", " as RFC 9110 §5.3
    /// allows and as .NET's header collection presents them to Microsoft's validator.
    public func value(for name: String) -> String? {
        let lowered = name.lowercased()
        let values = filter { $0.name.lowercased() == lowered }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
