/// A `<TestCase>`: requests run in order, each checked by its validators, then cleanup requests.
public struct TestCase: Sendable, Hashable {
    /// The case's unique `Name`.
    public let name: String
    /// Its `Category`.
    public let category: TestCategory
    /// The `<Description>`, condensed to single spaces.
    public let description: String
    /// The requests under `<Requests>` (at least one).
    public let requests: [RequestDefinition]
    /// The requests under `<CleanupRequests>`; run even after a failure, never validated.
    public let cleanupRequests: [RequestDefinition]
    /// The `FailMessage` shown instead of "<request> request failed.", when present.
    public let failMessage: String?

    /// Creates a case.
    public init(name: String, category: TestCategory, description: String, requests: [RequestDefinition],
                cleanupRequests: [RequestDefinition], failMessage: String?) {
        self.name = name
        self.category = category
        self.description = description
        self.requests = requests
        self.cleanupRequests = cleanupRequests
        self.failMessage = failMessage
    }
}
