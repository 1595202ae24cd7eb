import WOPIHTTPClient

/// One request a test case sent and what came back, for the report.
public struct RequestRecord: Sendable, Hashable, Codable {
    /// The request element name (`Lock`, `PutFile`, …).
    public let name: String
    /// `GET` or `POST`; empty when the request could not be built.
    public let method: String
    /// The URL requested.
    public let url: String
    /// Headers sent (the access token appears as sent; treat reports as secret when tokens are real).
    public let requestHeaders: [HeaderField]
    /// The status answered, 0 when none.
    public let status: Int
    /// Headers answered.
    public let responseHeaders: [HeaderField]
    /// The body answered: text up to 8000 characters, "Non text content" for downloads, "No content" when empty.
    public let responseBody: String
    /// Validation failures of this request (empty for cleanup requests, which are not validated).
    public let failures: [String]
    /// Whether this is a `<CleanupRequests>` entry.
    public let isCleanup: Bool

    /// Creates a record.
    public init(name: String, method: String, url: String, requestHeaders: [HeaderField], status: Int,
                responseHeaders: [HeaderField], responseBody: String, failures: [String], isCleanup: Bool) {
        self.name = name
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.failures = failures
        self.isCleanup = isCleanup
    }
}
