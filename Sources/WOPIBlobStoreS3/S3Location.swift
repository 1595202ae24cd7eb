import Foundation

/// Where a store keeps its objects: `s3://BUCKET[/PREFIX]?endpoint=URL&region=R`.
///
/// Requests use path-style addressing (`ENDPOINT/BUCKET/KEY`), which every S3-compatible server
/// understands. Without `endpoint`, the region's AWS endpoint is used; without `region`, `us-east-1`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket name.
    public var bucket: String
    /// Prepended to every object key; empty or ending in `/`.
    public var prefix: String
    /// The server's base URL, `http` or `https`, without a path.
    public var endpoint: URL
    /// The region requests are signed for.
    public var region: String

    /// Parses an `s3://` URL; the error names what is wrong.
    public init(parsing text: String) throws {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "s3" else {
            throw S3BlobStoreError.invalidLocation("'\(text)' is not an s3://BUCKET[/PREFIX]?endpoint=URL&region=R URL")
        }
        guard let bucket = components.host, !bucket.isEmpty else {
            throw S3BlobStoreError.invalidLocation("'\(text)' names no bucket")
        }
        guard bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }), (3...63).contains(bucket.count) else {
            throw S3BlobStoreError.invalidLocation("'\(bucket)' is not a bucket name (3 to 63 lower-case letters, digits, '-' or '.')")
        }
        var prefix = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !prefix.isEmpty { prefix += "/" }
        var region = "us-east-1"
        var endpoint: URL?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "region":
                guard let value = item.value, !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
                    throw S3BlobStoreError.invalidLocation("region '\(item.value ?? "")' is not a region name such as us-east-1")
                }
                region = value
            case "endpoint":
                guard let value = item.value, let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                      ["http", "https"].contains(scheme), url.host != nil, url.path.isEmpty || url.path == "/" else {
                    throw S3BlobStoreError.invalidLocation("endpoint '\(item.value ?? "")' is not an http(s)://HOST[:PORT] URL")
                }
                endpoint = url
            default:
                throw S3BlobStoreError.invalidLocation("unknown parameter '\(item.name)' (endpoint and region are known)")
            }
        }
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
        self.endpoint = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")!
    }

    /// The URL as written, normalized.
    public var description: String {
        "s3://\(bucket)/\(prefix)?endpoint=\(endpoint.absoluteString)&region=\(region)"
    }

    /// The `Host` header: the endpoint's host, and its port when given.
    var hostHeader: String {
        let host = endpoint.host!
        return endpoint.port.map { "\(host):\($0)" } ?? host
    }
}
