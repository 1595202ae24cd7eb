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
    /// For a skip: the prerequisite that failed as a failure of the host (a ``PrerequisiteFailure``) and
    /// kept this case from running; `nil` for a skip because the host does not claim a feature.
    public let blockingPrerequisite: String?

    /// Creates a result.
    public init(group: String, name: String, category: String, status: Status, message: String, errors: [String], requests: [RequestRecord],
                blockingPrerequisite: String? = nil) {
        self.group = group
        self.name = name
        self.category = category
        self.status = status
        self.message = message
        self.errors = errors
        self.requests = requests
        self.blockingPrerequisite = blockingPrerequisite
    }

    /// The request whose validation failed, when there is one.
    public var failingRequest: RequestRecord? { requests.last { !$0.failures.isEmpty } }

    /// The line printed for this case, e.g. `PASS Locks/Lock.Success` or
    /// `FAIL FileVersion/GetFile.ItemVersion: GetFile request failed. [HTTP 200] 'X-WOPI-ItemVersion' header is not present … body: …`.
    public var summaryLine: String {
        let label: String
        switch status {
        case .passed: label = "PASS"
        case .failed: label = "FAIL"
        case .skipped: label = "SKIP"
        }
        let line = "\(label) \(group)/\(name)"
        return status == .passed ? line : line + ": " + detail
    }

    /// Why the case did not pass, on one line: the message; for a failure the HTTP status, the validation
    /// failures and up to ``bodyExcerptLength`` characters of the body answered. A skip behind a
    /// ``PrerequisiteFailure`` only names it (its reason is reported once, with the failure).
    public var detail: String {
        guard status != .passed else { return "passed" }
        var line = message
        if status == .failed {
            line += Self.failureDetail(request: failingRequest, errors: errors)
        } else if blockingPrerequisite == nil, !errors.isEmpty {
            line += " " + errors.joined(separator: "; ")
        }
        return line.replacingNewlines()
    }

    /// How much of a response body a failure line shows.
    public static let bodyExcerptLength = 300

    static func failureDetail(request: RequestRecord?, errors: [String]) -> String {
        var line = ""
        if let request { line += " [HTTP \(request.status)]" }
        if !errors.isEmpty { line += " " + errors.joined(separator: "; ") }
        if let request, !request.responseBody.isEmpty {
            let body = request.responseBody
            line += " body: " + String(body.prefix(bodyExcerptLength)) + (body.count > bodyExcerptLength ? "…" : "")
        }
        return line
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}
