/// A `<SaveState><State Name=… Source=… SourceType=…/>` entry: after a request passes, remember a value from
/// its response under `name` for later `$State:name` URLs and `ExpectedStateKey` checks.
public struct StateSaver: Sendable, Hashable {
    /// Where the value comes from.
    public enum Source: Sendable, Hashable {
        /// A JSON path into the response body.
        case jsonBody(String)
        /// A response header name.
        case header(String)
    }

    /// The state key.
    public let name: String
    /// Where the value is read.
    public let source: Source

    /// Creates a saver.
    public init(name: String, source: Source) {
        self.name = name
        self.source = source
    }
}
