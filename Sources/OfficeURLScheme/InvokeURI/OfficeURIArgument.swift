/// A descriptor/argument pair the library does not model, kept in order (Office URI Schemes §1.6:
/// Office ignores pairs it does not know, so a parser must not drop them).
public struct OfficeURIArgument: Sendable, Hashable, Codable {
    /// The descriptor, for example `x` in `|x|value`.
    public let descriptor: String
    /// The decoded argument.
    public let value: String

    /// Creates a pair; the descriptor must be 1 or more of `A-Z a-z 0-9 . _ ~ -`.
    ///
    /// - Throws: ``OfficeURLError/invalidDescriptor(_:)``.
    public init(descriptor: String, value: String) throws(OfficeURLError) {
        guard Self.isValidDescriptor(descriptor) else { throw .invalidDescriptor(descriptor) }
        self.descriptor = descriptor
        self.value = value
    }

    static func isValidDescriptor(_ d: String) -> Bool {
        !d.isEmpty && d.utf8.allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
        }
    }
}
