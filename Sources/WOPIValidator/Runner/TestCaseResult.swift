/// The outcome of one test case.
public struct TestCaseResult: Sendable, Hashable, Codable {
    /// Passed, failed, or skipped because a prerequisite failed or its group is not run.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Every request and validator succeeded.
        case passed
        /// A request or validator failed; the result says which.
        case failed
        /// Not run, for example because its group is excluded.
        case skipped
    }

    /// The group the case belongs to.
    public let group: String
    /// The case name.
    public let name: String
    /// The case's category.
    public let category: String
    /// The outcome.
    public let status: Status
    /// A one-line explanation: the failing request, or the prerequisite that failed.
    public let message: String
    /// All validation failures of the failing request (or of the failed prerequisite).
    public let errors: [String]
    /// Every request sent, cleanup included (for a skip: the failed prerequisite's requests).
    public let requests: [RequestRecord]

    /// Creates a result.
    public init(group: String, name: String, category: String, status: Status, message: String, errors: [String], requests: [RequestRecord]) {
        self.group = group
        self.name = name
        self.category = category
        self.status = status
        self.message = message
        self.errors = errors
        self.requests = requests
    }

    /// The request whose validation failed, when there is one.
    public var failingRequest: RequestRecord? { requests.last { !$0.failures.isEmpty } }

    /// The line printed for this case, e.g. `PASS Locks/Lock.Success` or
    /// `FAIL FileVersion/GetFile.ItemVersion: GetFile request failed. 'X-WOPI-ItemVersion' header is not present …`.
    public var summaryLine: String {
        let label: String
        switch status {
        case .passed: label = "PASS"
        case .failed: label = "FAIL"
        case .skipped: label = "SKIP"
        }
        var line = "\(label) \(group)/\(name)"
        if status != .passed {
            line += ": " + message
            if let failing = failingRequest, status == .failed {
                line += " [HTTP \(failing.status)]"
            }
            if !errors.isEmpty { line += " " + errors.joined(separator: "; ") }
        }
        return line.replacingNewlines()
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}
