import Crypto
import Foundation

/// AWS Signature Version 4 for one region and service: the `Authorization` header value of a request.
///
/// Follows "Create a signed AWS API request" in the AWS Identity and Access Management user guide: a
/// canonical request, a string to sign over its SHA-256, and an HMAC-SHA256 chain from the secret key
/// through the date, region, service and `aws4_request`. Paths are encoded once and never normalized,
/// as S3 requires.
public struct SignatureV4: Sendable {
    /// The keys that sign.
    public var credentials: S3Credentials
    /// The region in the credential scope, e.g. `us-east-1`.
    public var region: String
    /// The service in the credential scope: `s3` for object storage.
    public var service: String

    /// A signer for `service` in `region`.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The request parts a signature covers.
    public struct Request: Sendable {
        /// `GET`, `PUT`, …
        public var method: String
        /// The path, not yet percent-encoded (`/bucket/key`).
        public var path: String
        /// Query parameters, not yet percent-encoded, in any order.
        public var query: [(name: String, value: String)]
        /// The headers to sign (`host` and `x-amz-date` among them), in any order and case.
        public var headers: [(name: String, value: String)]
        /// Lower-case hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
        public var payloadHash: String

        /// A request to sign.
        public init(method: String, path: String, query: [(name: String, value: String)] = [],
                    headers: [(name: String, value: String)], payloadHash: String) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// `x-amz-date`'s format: `20150830T123600Z`.
    public static func amzDate(_ date: Date) -> String {
        let c = Calendar.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// The lower-case hex SHA-256 of an empty body.
    public static let emptyPayloadHash = hex(SHA256.hash(data: Data()))

    /// The canonical request: method, encoded path and query, canonical headers, signed header names, payload hash.
    public func canonicalRequest(_ request: Request) -> String {
        let pairs: [(name: String, value: String)] = request.query.map {
            (Self.encode($0.name, keepSlash: false), Self.encode($0.value, keepSlash: false))
        }
        let sorted = pairs.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let query = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(request.headers)
        return [request.method, Self.encode(request.path, keepSlash: true), query, canonicalHeaders, signedHeaders, request.payloadHash]
            .joined(separator: "\n")
    }

    /// The string to sign for a request made at `date`.
    public func stringToSign(_ request: Request, date: Date) -> String {
        let digest = SHA256.hash(data: Data(canonicalRequest(request).utf8))
        return ["AWS4-HMAC-SHA256", Self.amzDate(date), scope(date), Self.hex(digest)].joined(separator: "\n")
    }

    /// The `Authorization` header value for a request made at `date` (its `x-amz-date` header must say the same).
    public func authorization(_ request: Request, date: Date) -> String {
        let key = signingKey(date)
        let signature = HMAC<SHA256>.authenticationCode(for: Data(stringToSign(request, date: date).utf8), using: key)
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(date)), "
            + "SignedHeaders=\(Self.canonicalHeaders(request.headers).signed), Signature=\(Self.hex(signature))"
    }

    private func scope(_ date: Date) -> String {
        "\(Self.amzDate(date).prefix(8))/\(region)/\(service)/aws4_request"
    }

    private func signingKey(_ date: Date) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [String(Self.amzDate(date).prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// Lower-case names, sorted; values trimmed with inner runs of spaces collapsed; repeated names joined by commas.
    private static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (canonical: String, signed: String) {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let collapsed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[name.lowercased(), default: []].append(collapsed)
        }
        let names = values.keys.sorted()
        return (names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined(), names.joined(separator: ";"))
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (and `/` in paths).
    static func encode(_ text: String, keepSlash: Bool) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                encoded.append("/")
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}

extension Calendar {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
