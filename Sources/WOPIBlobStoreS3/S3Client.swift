import AsyncHTTPClient
import Foundation
import WOPICore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import XMLCoder

/// The few S3 calls a blob store needs, signed with ``SignatureV4`` and sent with AsyncHTTPClient.
///
/// Bodies are sent as `UNSIGNED-PAYLOAD`, as AWS's own SDKs do for streamed uploads: the signature
/// covers the request, not the bytes, so each part is not hashed twice. Use an `https` endpoint
/// wherever the network between host and store is not trusted.
struct S3Client: Sendable {
    let location: S3Location
    let signer: SignatureV4
    let http: HTTPClient

    /// An error answer from the server: its status and S3 error code.
    struct ServerError: Error, CustomStringConvertible {
        var status: HTTPResponseStatus
        var code: String
        var message: String
        /// The region S3 says the bucket is in, when it says so (wrong-region answers).
        var bucketRegion: String?

        var description: String { "\(status.code) \(code)\(message.isEmpty ? "" : ": \(message)")" }
    }

    /// How long one call may take, its retries included (a part of a multipart upload is one call).
    let timeout: TimeAmount

    init(location: S3Location, credentials: S3Credentials, http: HTTPClient, timeout: TimeAmount = S3BlobStore.defaultTimeout) {
        self.location = location
        self.signer = SignatureV4(credentials: credentials, region: location.region)
        self.http = http
        self.timeout = timeout
    }

    /// The object key for a blob key.
    func objectKey(_ name: String) -> String { location.prefix + name }

    // MARK: Requests

    /// Sends a signed request and returns the response once its head arrived; a non-2xx answer is thrown
    /// as ``ServerError`` unless `accepting` lists it.
    /// `headers` are sent unsigned (such as `Range`).
    ///
    /// `timeout` bounds the whole call, the retries of a 5xx answer included: when it passes, the call throws
    /// ``S3BlobStoreError/unreachable(_:)`` saying how long it waited.
    func send(_ method: HTTPMethod, key: String? = nil, query: [(name: String, value: String)] = [], headers: [(String, String)] = [],
              body: ByteBuffer? = nil, timeout: TimeAmount, accepting: Set<UInt> = []) async throws -> HTTPClientResponse {
        let deadline = NIODeadline.now() + timeout
        let path = "/\(location.bucket)" + (key.map { "/\($0)" } ?? "")
        let date = Date()
        let amzDate = SignatureV4.amzDate(date)
        let payloadHash = body == nil ? SignatureV4.emptyPayloadHash : "UNSIGNED-PAYLOAD"
        let signed: [(name: String, value: String)] = [("host", location.hostHeader), ("x-amz-content-sha256", payloadHash), ("x-amz-date", amzDate)]
        let authorization = signer.authorization(.init(method: method.rawValue, path: path, query: query, headers: signed, payloadHash: payloadHash), date: date)
        let encodedQuery = query.map { "\(SignatureV4.encode($0.name, keepSlash: false))=\(SignatureV4.encode($0.value, keepSlash: false))" }
            .joined(separator: "&")
        var base = location.endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var request = HTTPClientRequest(url: base + SignatureV4.encode(path, keepSlash: true) + (encodedQuery.isEmpty ? "" : "?\(encodedQuery)"))
        request.method = method
        for (name, value) in signed { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.add(name: "Authorization", value: authorization)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Length", value: String(body.readableBytes))
            request.body = .bytes(body)
        }
        // S3 asks clients to retry 500 InternalError and 503 SlowDown; as AWS's SDKs do, a few times with
        // growing pauses. Every request here has its whole body in memory, so sending it again is safe.
        var attempt = 1
        while true {
            let response: HTTPClientResponse
            do {
                response = try await http.execute(request, deadline: deadline)
            } catch let error as HTTPClientError where error == .deadlineExceeded {
                throw S3BlobStoreError.unreachable("the S3 endpoint \(location.endpoint.absoluteString) did not answer within \(Self.seconds(timeout)) s")
            } catch {
                throw S3BlobStoreError.unreachable("cannot reach the S3 endpoint \(location.endpoint.absoluteString): \(Self.describe(error))")
            }
            if (200..<300).contains(response.status.code) || accepting.contains(response.status.code) { return response }
            let error = try await serverError(response)
            let pause = TimeAmount.milliseconds(250 << (attempt - 1))
            guard attempt < Self.maximumAttempts, [500, 502, 503, 504].contains(response.status.code), .now() + pause < deadline else { throw error }
            try await Task.sleep(for: .nanoseconds(pause.nanoseconds))
            attempt += 1
        }
    }

    /// `timeout` in seconds, as people write it: `30`, `2.5`.
    static func seconds(_ timeout: TimeAmount) -> String {
        let seconds = Double(timeout.nanoseconds) / 1e9
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// How many times a request answered with a server error (5xx) is sent, the first included.
    static let maximumAttempts = 4

    /// Sends a request and collects its (small, XML) answer.
    func sendCollecting(_ method: HTTPMethod, key: String? = nil, query: [(name: String, value: String)] = [],
                        body: ByteBuffer? = nil, timeout: TimeAmount, accepting: Set<UInt> = []) async throws -> (HTTPResponseStatus, ByteBuffer) {
        let response = try await send(method, key: key, query: query, body: body, timeout: timeout, accepting: accepting)
        return (response.status, try await response.body.collect(upTo: 16 * 1024 * 1024))
    }

    private func serverError(_ response: HTTPClientResponse) async throws -> ServerError {
        let body = (try? await response.body.collect(upTo: 1024 * 1024)) ?? ByteBuffer()
        let decoded = try? Self.decode(ErrorResponse.self, from: body)
        return ServerError(status: response.status, code: decoded?.code ?? response.status.reasonPhrase,
                           message: decoded?.message ?? "", bucketRegion: decoded?.region ?? response.headers.first(name: "x-amz-bucket-region"))
    }

    /// An error's own words, without AsyncHTTPClient's type names where it has a plainer one.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connection timed out"
            case .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }

    /// An XML answer as `type`; an answer swift-corelibs-foundation's XMLParser (under XMLCoder) must not be given
    /// (``XMLInputCheck``) is refused first.
    static func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws -> T {
        let data = Data(buffer: body)
        if let problem = XMLInputCheck.problem(in: data) { throw S3BlobStoreError.requestFailed("the S3 server's answer cannot be read: \(problem)") }
        return try XMLDecoder().decode(type, from: data)
    }

    // MARK: Calls

    /// `ListObjectsV2` of at most one key: proves the bucket exists and the keys and region are right.
    func probeBucket(timeout: TimeAmount) async throws {
        _ = try await sendCollecting(.GET, query: [("list-type", "2"), ("max-keys", "1"), ("prefix", location.prefix)], timeout: timeout)
    }

    /// One page of `ListObjectsV2` under the store's prefix.
    func listObjects(continuation: String?) async throws -> ListBucketResult {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", location.prefix)]
        if let continuation { query.append(("continuation-token", continuation)) }
        let (_, body) = try await sendCollecting(.GET, query: query, timeout: timeout)
        return try Self.decode(ListBucketResult.self, from: body)
    }

    /// One page of `ListMultipartUploads` under the store's prefix.
    func listMultipartUploads(keyMarker: String?, uploadIDMarker: String?, prefix: String? = nil) async throws -> ListMultipartUploadsResult {
        var query: [(name: String, value: String)] = [("uploads", ""), ("prefix", prefix ?? location.prefix)]
        if let keyMarker { query.append(("key-marker", keyMarker)) }
        if let uploadIDMarker { query.append(("upload-id-marker", uploadIDMarker)) }
        let (_, body) = try await sendCollecting(.GET, query: query, timeout: timeout)
        return try Self.decode(ListMultipartUploadsResult.self, from: body)
    }

    /// Creates the bucket (for tests and first set-up).
    func createBucket() async throws {
        _ = try await sendCollecting(.PUT, timeout: timeout)
    }

    func putObject(_ key: String, body: ByteBuffer) async throws {
        _ = try await sendCollecting(.PUT, key: key, body: body, timeout: timeout)
    }

    /// Deletes an object; a missing one is fine (S3 answers 204 either way, some servers 404).
    func deleteObject(_ key: String) async throws {
        _ = try await sendCollecting(.DELETE, key: key, timeout: timeout, accepting: [404])
    }

    func createMultipartUpload(_ key: String) async throws -> String {
        let (_, body) = try await sendCollecting(.POST, key: key, query: [("uploads", "")], timeout: timeout)
        return try Self.decode(InitiateMultipartUploadResult.self, from: body).uploadID
    }

    /// Uploads one part; returns its ETag.
    func uploadPart(_ key: String, uploadID: String, number: Int, body: ByteBuffer) async throws -> String {
        let response = try await send(.PUT, key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)], body: body, timeout: timeout)
        _ = try await response.body.collect(upTo: 1024 * 1024)
        guard let etag = response.headers.first(name: "ETag") else {
            throw S3BlobStoreError.requestFailed("the S3 server returned no ETag for part \(number)")
        }
        return etag
    }

    func completeMultipartUpload(_ key: String, uploadID: String, etags: [String]) async throws {
        let parts = CompleteMultipartUpload(parts: etags.enumerated().map { .init(partNumber: $0.offset + 1, etag: $0.element) })
        let xml = try XMLEncoder().encode(parts, withRootKey: "CompleteMultipartUpload")
        let (status, body) = try await sendCollecting(.POST, key: key, query: [("uploadId", uploadID)], body: ByteBuffer(bytes: xml), timeout: timeout)
        // S3 may answer 200 and still fail: the error is in the body.
        if let error = try? Self.decode(ErrorResponse.self, from: body), let code = error.code {
            throw ServerError(status: status, code: code, message: error.message ?? "", bucketRegion: nil)
        }
    }

    func abortMultipartUpload(_ key: String, uploadID: String) async throws {
        _ = try await sendCollecting(.DELETE, key: key, query: [("uploadId", uploadID)], timeout: timeout, accepting: [404])
    }
}

// MARK: XML documents

struct ErrorResponse: Decodable {
    var code: String?
    var message: String?
    var region: String?
    enum CodingKeys: String, CodingKey { case code = "Code", message = "Message", region = "Region" }
}

struct ListBucketResult: Decodable {
    struct Object: Decodable {
        var key: String
        var lastModified: String
        enum CodingKeys: String, CodingKey { case key = "Key", lastModified = "LastModified" }
    }
    var contents: [Object]
    var isTruncated: Bool
    var nextContinuationToken: String?
    enum CodingKeys: String, CodingKey {
        case contents = "Contents", isTruncated = "IsTruncated", nextContinuationToken = "NextContinuationToken"
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contents = try container.decodeIfPresent([Object].self, forKey: .contents) ?? []
        isTruncated = try container.decodeIfPresent(Bool.self, forKey: .isTruncated) ?? false
        nextContinuationToken = try container.decodeIfPresent(String.self, forKey: .nextContinuationToken)
    }
}

struct ListMultipartUploadsResult: Decodable {
    struct Upload: Decodable {
        var key: String
        var uploadID: String
        var initiated: String
        enum CodingKeys: String, CodingKey { case key = "Key", uploadID = "UploadId", initiated = "Initiated" }
    }
    var uploads: [Upload]
    var isTruncated: Bool
    var nextKeyMarker: String?
    var nextUploadIDMarker: String?
    enum CodingKeys: String, CodingKey {
        case uploads = "Upload", isTruncated = "IsTruncated", nextKeyMarker = "NextKeyMarker", nextUploadIDMarker = "NextUploadIdMarker"
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uploads = try container.decodeIfPresent([Upload].self, forKey: .uploads) ?? []
        isTruncated = try container.decodeIfPresent(Bool.self, forKey: .isTruncated) ?? false
        nextKeyMarker = try container.decodeIfPresent(String.self, forKey: .nextKeyMarker)
        nextUploadIDMarker = try container.decodeIfPresent(String.self, forKey: .nextUploadIDMarker)
    }
}

struct InitiateMultipartUploadResult: Decodable {
    var uploadID: String
    enum CodingKeys: String, CodingKey { case uploadID = "UploadId" }
}

struct CompleteMultipartUpload: Encodable {
    struct Part: Encodable {
        var partNumber: Int
        var etag: String
        enum CodingKeys: String, CodingKey { case partNumber = "PartNumber", etag = "ETag" }
    }
    var parts: [Part]
    enum CodingKeys: String, CodingKey { case parts = "Part" }
}

/// S3's timestamps: ISO 8601 in UTC, with or without fractional seconds.
enum S3Timestamp {
    static func parse(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }
}
