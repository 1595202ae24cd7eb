/// What every suite of this library is: a set of promises (its `Check` cases), each checked on its own
/// new, empty storage by ``run(_:)``.
public protocol ConformanceSuite: Sendable {
    /// One promise of the suite.
    associatedtype Check: CaseIterable, Sendable
    /// Runs one check.
    func run(_ check: Check) async throws
}

extension ConformanceSuite {
    /// Runs every check, one after the other.
    public func run() async throws {
        for check in Check.allCases { try await run(check) }
    }
}
