/// A `<TestGroup>`: test cases that share prerequisite cases.
public struct TestGroup: Sendable, Hashable {
    /// The group's `Name`.
    public let name: String
    /// `HasDelay="true"`: cases sleep on purpose; Microsoft's runner skips such groups unless asked.
    public let hasDelay: Bool
    /// Names of the `<PrereqCases>` that must pass before any case of the group runs.
    public let prerequisiteNames: [String]
    /// The group's cases, every category included.
    public let cases: [TestCase]

    /// Creates a group.
    public init(name: String, hasDelay: Bool, prerequisiteNames: [String], cases: [TestCase]) {
        self.name = name
        self.hasDelay = hasDelay
        self.prerequisiteNames = prerequisiteNames
        self.cases = cases
    }
}
