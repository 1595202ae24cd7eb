/// A prerequisite case that failed for the host's fault, reported once for the whole run.
///
/// Microsoft's runner turns every case behind a failed prerequisite into a skip. When the prerequisite
/// only asks whether the host claims a feature, that is right; when it checks what every host must answer
/// (`WopiValidatorPrereq`: CheckFileInfo against the schema) or got no normal answer, the run cannot
/// vouch for anything, so the prerequisite counts as one failed case and names how many it kept from running.
public struct PrerequisiteFailure: Sendable, Hashable, Codable {
    /// The prerequisite case's name, e.g. `WopiValidatorPrereq`.
    public let name: String
    /// The failing request's message, e.g. `CheckFileInfo request failed.`.
    public let message: String
    /// The validation failures of the failing request.
    public let errors: [String]
    /// The requests the prerequisite sent.
    public let requests: [RequestRecord]
    /// How many planned cases it kept from running.
    public internal(set) var blockedCases: Int

    /// Creates a failure.
    public init(name: String, message: String, errors: [String], requests: [RequestRecord], blockedCases: Int = 0) {
        self.name = name
        self.message = message
        self.errors = errors
        self.requests = requests
        self.blockedCases = blockedCases
    }

    /// The request whose validation failed, when there is one.
    public var failingRequest: RequestRecord? { requests.last { !$0.failures.isEmpty } }

    /// `FAIL prerequisite WopiValidatorPrereq: CheckFileInfo request failed. [HTTP 200] … body: …`.
    public var summaryLine: String {
        ("FAIL prerequisite \(name): " + detail).replacingNewlines()
    }

    /// The reason on one line: message, HTTP status, validation failures and the start of the body.
    public var detail: String {
        (message + TestCaseResult.failureDetail(request: failingRequest, errors: errors)).replacingNewlines()
    }

    /// `WopiValidatorPrereq failed: 123 cases not run`.
    public var blockedLine: String {
        "\(name) failed: \(blockedCases) case\(blockedCases == 1 ? "" : "s") not run"
    }
}
