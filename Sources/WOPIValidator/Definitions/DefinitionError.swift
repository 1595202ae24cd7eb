/// A problem in a validator definitions file (TestCases.xml) or its JSON schemas.
public struct DefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line in TestCases.xml, or 0 when not tied to a line.
    public let line: Int
    /// What is wrong, naming the element or attribute.
    public let reason: String

    /// Creates an error.
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// The reason, with the TestCases.xml line when known.
    public var description: String { line > 0 ? "TestCases.xml line \(line): \(reason)" : reason }
}
