/// The results of a run and its totals.
public struct RunReport: Sendable, Hashable, Codable {
    /// Counts per status.
    public struct Totals: Sendable, Hashable, Codable {
        /// Cases that passed.
        public var passed = 0
        /// Cases that failed, and prerequisites that failed for the host's fault (``PrerequisiteFailure``).
        public var failed = 0
        /// Cases skipped (failed prerequisite or delayed group).
        public var skipped = 0

        /// Creates totals.
        public init(passed: Int = 0, failed: Int = 0, skipped: Int = 0) {
            self.passed = passed
            self.failed = failed
            self.skipped = skipped
        }

        /// `N passed, N failed, N skipped` — the exact line CI looks for.
        public var line: String { "\(passed) passed, \(failed) failed, \(skipped) skipped" }
    }

    /// Every executed or skipped case, in file order.
    public let results: [TestCaseResult]
    /// Groups that were left out, with reasons.
    public let excludedGroups: [ExcludedGroup]
    /// Prerequisites that failed for the host's fault; each counts as one failure.
    public let prerequisiteFailures: [PrerequisiteFailure]

    /// Creates a report.
    public init(results: [TestCaseResult], excludedGroups: [ExcludedGroup], prerequisiteFailures: [PrerequisiteFailure] = []) {
        self.results = results
        self.excludedGroups = excludedGroups
        self.prerequisiteFailures = prerequisiteFailures
    }

    /// The totals: every case once, and each ``PrerequisiteFailure`` as one more failure.
    public var totals: Totals {
        var totals = Totals(failed: prerequisiteFailures.count)
        for result in results {
            switch result.status {
            case .passed: totals.passed += 1
            case .failed: totals.failed += 1
            case .skipped: totals.skipped += 1
            }
        }
        return totals
    }

    /// The results that failed.
    public var failures: [TestCaseResult] { results.filter { $0.status == .failed } }
}
