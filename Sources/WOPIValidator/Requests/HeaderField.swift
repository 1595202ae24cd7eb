/// One HTTP header line (RFC 9110 §5); names compare case-insensitively where it matters.
public struct HeaderField: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The field name as sent or received.
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
    /// The value of header `name` (case-insensitive); repeated fields are joined with ", " as .NET's
    /// header collection presents them to Microsoft's runner.
    public func value(for name: String) -> String? {
        let lowered = name.lowercased()
        let values = filter { $0.name.lowercased() == lowered }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
