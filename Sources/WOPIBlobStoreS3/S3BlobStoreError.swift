/// Why an ``S3BlobStore`` cannot start or work. Descriptions are one line and name the problem, never a secret.
public enum S3BlobStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `s3://` URL is malformed.
    case invalidLocation(String)
    /// No credentials, or the server refused them.
    case badCredentials(String)
    /// The bucket is in another region than the one requests are signed for.
    case wrongRegion(String)
    /// The bucket does not exist.
    case noSuchBucket(String)
    /// The endpoint did not answer.
    case unreachable(String)
    /// The server answered a request with an error.
    case requestFailed(String)

    /// The problem in one line.
    public var description: String {
        switch self {
        case .invalidLocation(let text), .badCredentials(let text), .wrongRegion(let text), .noSuchBucket(let text),
             .unreachable(let text), .requestFailed(let text):
            text
        }
    }
}
