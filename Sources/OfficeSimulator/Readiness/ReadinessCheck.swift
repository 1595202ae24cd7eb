/// The outcome of one readiness check of `wopi check-host`: a mobile rule, a scenario or a
/// validator case, with a stable name a person and a CI report can point at.
public struct ReadinessCheck: Sendable, Hashable {
    /// How a check ended.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The host meets the rule.
        case passed
        /// The rule does not apply, or could not be checked; the detail says why.
        case skipped
        /// The host breaks the rule; Office for iOS would not work with it as it is.
        case failed
        /// The host departs from what the docs ask, but Office for iOS still works with it; the
        /// detail names the doc page.
        case warning
    }

    /// Which family the check belongs to: `rule`, `scenario` or `validator`.
    public let suite: String
    /// The check's name within its suite, for example `checkfileinfo.property-types`.
    public let name: String
    /// How it ended.
    public let outcome: Outcome
    /// What was checked, or why it failed, in one line.
    public let detail: String

    /// Creates a check result.
    public init(suite: String, name: String, outcome: Outcome, detail: String) {
        self.suite = suite
        self.name = name
        self.outcome = outcome
        self.detail = detail
    }
}
