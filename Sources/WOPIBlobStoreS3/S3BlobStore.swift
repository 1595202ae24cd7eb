import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOConcurrencyHelpers
import WOPIHost

/// A `BlobStore` (WOPIHost) in an S3-compatible bucket (AWS S3, SeaweedFS, MinIO, …): one object per body,
/// named `PREFIX` + the blob key.
///
/// A body up to ``partSize`` goes up in one `PUT`; a larger one as a multipart upload of ``partSize``
/// parts, each sent while the next fills, so at most two parts are in memory. S3 stores an object
/// durably before it answers, and a multipart object appears only when the upload completes: a key
/// is returned, and recorded, only after that. Reads stream the object as the server sends it.
///
/// Every call to the server is bounded by ``timeout`` (a part of a multipart upload is one call, so a slow
/// but moving upload of any size completes). A write that fails is abandoned for good: its upload is
/// aborted, or its object deleted, before the error is thrown, and an object store that is down, slow or
/// refusing is reported as `BlobStoreError.unavailable` with the reason, which the host answers with 503.
public struct S3BlobStore: KeyedBlobStore {
    /// The bucket, prefix, endpoint and region.
    public let s3Location: S3Location
    /// The size of each part of a multipart upload, and the largest body sent in a single `PUT`.
    public let partSize: Int
    /// How long one call to the server may take, its retries included: a single `PUT`, one part, a read's GET.
    public let timeout: TimeAmount
    let client: S3Client

    /// The default ``timeout``.
    public static let defaultTimeout: TimeAmount = .seconds(30)

    /// The smallest ``partSize``: parts of at least 8 MiB keep a 5 GiB body within S3's 10,000 parts.
    public static let minimumPartSize = 8 * 1024 * 1024

    /// A store over `location`, signing with `credentials`, sending through `http` (which the caller
    /// shuts down). Checks nothing: use ``connect(to:credentials:http:partSize:timeout:callTimeout:)`` to fail early.
    public init(location: S3Location, credentials: S3Credentials, http: HTTPClient, partSize: Int = S3BlobStore.minimumPartSize,
                timeout: TimeAmount = S3BlobStore.defaultTimeout) {
        self.s3Location = location
        self.partSize = max(partSize, Self.minimumPartSize)
        self.timeout = timeout
        self.client = S3Client(location: location, credentials: credentials, http: http, timeout: timeout)
    }

    /// A store whose bucket was reached with these credentials and region, or an ``S3BlobStoreError``
    /// naming what is wrong: bad credentials, wrong region, no such bucket, or no answer within `timeout`.
    /// `callTimeout` becomes the store's ``timeout``.
    public static func connect(to location: S3Location, credentials: S3Credentials, http: HTTPClient,
                               partSize: Int = S3BlobStore.minimumPartSize, timeout: TimeAmount = .seconds(10),
                               callTimeout: TimeAmount = S3BlobStore.defaultTimeout) async throws -> S3BlobStore {
        let store = S3BlobStore(location: location, credentials: credentials, http: http, partSize: partSize, timeout: callTimeout)
        do {
            try await store.client.probeBucket(timeout: timeout)
        } catch let error as S3Client.ServerError {
            throw store.explain(error)
        }
        return store
    }

    /// An HTTP client suited to a store: bounded connection set-up, so an unreachable endpoint fails in seconds.
    public static func makeHTTPClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5)))
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Streams a body into a new object: one `PUT` up to ``partSize`` (a body of exactly ``partSize`` included), a
    /// multipart upload above it.
    ///
    /// When the server fails, the rest of the body is still read (up to `maximumSize`), so the client, which may
    /// still be sending, hears the answer instead of a dropped connection.
    public func write<Body: AsyncSequence & Sendable>(_ body: Body, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer {
        try await write(body, as: BlobKey.random(), maximumSize: maximumSize)
    }

    /// Stores a body as the object of `key`, replacing one of that key; as ``write(_:maximumSize:)`` otherwise.
    public func write<Body: AsyncSequence & Sendable>(_ body: Body, as key: BlobKey, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer {
        let objectKey = client.objectKey(key.rawValue)
        var hasher = SHA256()
        var size: Int64 = 0
        var part = ByteBuffer()
        part.reserveCapacity(partSize)
        var upload = Upload(objectKey: objectKey)
        var chunks = body.makeAsyncIterator()
        do {
            while let next = try await chunks.next() {
                size += Int64(next.readableBytes)
                guard size <= maximumSize else { throw BlobStoreError.tooLarge(maximumSize: maximumSize) }
                next.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                var chunk = next
                while chunk.readableBytes > 0 {
                    // A full part goes up only once more bytes follow it: a body of exactly one part is one PUT.
                    if part.readableBytes == partSize {
                        try await upload.send(part, client: client)
                        part = ByteBuffer()
                        part.reserveCapacity(partSize)
                    }
                    var slice = chunk.readSlice(length: min(chunk.readableBytes, partSize - part.readableBytes))!
                    part.writeBuffer(&slice)
                }
            }
            try await upload.finish(part, client: client)
            return StoredBlob(key: key, size: size, sha256: Data(hasher.finalize()).base64EncodedString())
        } catch {
            await upload.abandon(client: client)
            guard Self.isServerFailure(error) else { throw error }
            // The client may still be sending: read on, so that it gets the answer.
            while size <= maximumSize, let rest = try? await chunks.next() { size += Int64(rest.readableBytes) }
            throw unavailable(error)
        }
    }

    /// Whether `error` came from the object store rather than from the body being written.
    static func isServerFailure(_ error: any Error) -> Bool {
        error is S3Client.ServerError || error is S3BlobStoreError
    }

    /// An error of the object store as the host reads it: `BlobStoreError.unavailable` with the reason.
    private func unavailable(_ error: any Error) -> any Error {
        switch error {
        case let error as S3Client.ServerError: BlobStoreError.unavailable("the object store failed: \(explain(error))")
        case let error as S3BlobStoreError: BlobStoreError.unavailable("the object store failed: \(error)")
        default: error
        }
    }

    /// One write's way to the server: nothing yet, a multipart upload with its parts, or a single `PUT`.
    private struct Upload {
        let objectKey: String
        var uploadID: String?
        /// Whether a `CreateMultipartUpload` was sent (its answer may have been lost).
        var created = false
        var etags: [String] = []
        /// The part being sent while the next fills: two parts in memory at most.
        var sending: Task<String, any Error>?
        /// Whether the object itself may exist: a `PUT` or `CompleteMultipartUpload` was sent.
        var objectSent = false

        /// Sends a full part, starting the multipart upload with the first.
        mutating func send(_ part: ByteBuffer, client: S3Client) async throws {
            if uploadID == nil {
                created = true
                uploadID = try await client.createMultipartUpload(objectKey)
            }
            if let previous = sending {
                sending = nil
                etags.append(try await previous.value)
            }
            let (key, id, number) = (objectKey, uploadID!, etags.count + 1)
            sending = Task { try await client.uploadPart(key, uploadID: id, number: number, body: part) }
        }

        /// Sends the last part and completes the upload, or, when the body fit in one part, `PUT`s it.
        mutating func finish(_ part: ByteBuffer, client: S3Client) async throws {
            guard let uploadID else {
                objectSent = true
                try await client.putObject(objectKey, body: part)
                return
            }
            if let previous = sending {
                sending = nil
                etags.append(try await previous.value)
            }
            if part.readableBytes > 0 {
                etags.append(try await client.uploadPart(objectKey, uploadID: uploadID, number: etags.count + 1, body: part))
            }
            objectSent = true
            try await client.completeMultipartUpload(objectKey, uploadID: uploadID, etags: etags)
        }

        /// Leaves nothing behind: the part in flight stopped, the upload aborted (also one whose creation was
        /// answered too late to learn its id), and an object whose `PUT` or completion may have gone through deleted.
        mutating func abandon(client: S3Client) async {
            if let sending {
                sending.cancel()
                _ = try? await sending.value
            }
            if let uploadID {
                try? await client.abortMultipartUpload(objectKey, uploadID: uploadID)
            } else if created, let uploads = try? await client.listMultipartUploads(keyMarker: nil, uploadIDMarker: nil, prefix: objectKey) {
                for upload in uploads.uploads where upload.key == objectKey {
                    try? await client.abortMultipartUpload(objectKey, uploadID: upload.uploadID)
                }
            }
            if objectSent { try? await client.deleteObject(objectKey) }
        }
    }

    /// How many bytes one GET of ``read(_:size:)`` asks for.
    public static let readRangeSize: Int64 = 8 * 1024 * 1024

    /// Streams an object as consecutive ranged GETs of ``readRangeSize`` bytes (RFC 9110 §14.2), each
    /// asked for when the one before it is used up: no request stays open for a whole large body, and a
    /// server that ignores `Range` and sends the whole object (200) is read once, to its end.
    public func read(_ key: BlobKey, size: Int64) async throws -> BlobContent {
        let first = FirstResponse(try await get(key, range: Self.range(from: 0, size: size)))
        return BlobContent(size: size) { [self] in
            var chunks: HTTPClientResponse.Body.AsyncIterator?
            var next: Int64 = 0  // where the range after the current one starts
            return {
                while true {
                    if chunks == nil {
                        let response: HTTPClientResponse
                        if let taken = first.take() {
                            response = taken
                        } else {
                            guard next < size else { return nil }
                            response = try await get(key, range: Self.range(from: next, size: size))
                        }
                        next = response.status == .partialContent ? min(size, next + Self.readRangeSize) : size
                        chunks = response.body.makeAsyncIterator()
                    }
                    if let chunk = try await chunks!.next() { return chunk }
                    chunks = nil
                    guard next < size else { return nil }
                }
            }
        }
    }

    /// The `Range` of the GET that starts at `offset`; none for an empty object (a range of it is unsatisfiable).
    static func range(from offset: Int64, size: Int64) -> String? {
        size > 0 ? "bytes=\(offset)-\(min(size, offset + readRangeSize) - 1)" : nil
    }

    private func get(_ key: BlobKey, range: String?) async throws -> HTTPClientResponse {
        do {
            return try await client.send(.GET, key: client.objectKey(key.rawValue), headers: range.map { [("Range", $0)] } ?? [],
                                         timeout: timeout)
        } catch let error as S3Client.ServerError where error.status == .notFound {
            throw BlobStoreError.notFound(key)
        } catch {
            throw unavailable(error)
        }
    }

    /// Deletes an object; a missing one is no error.
    public func delete(_ key: BlobKey) async throws {
        do { try await client.deleteObject(client.objectKey(key.rawValue)) } catch { throw unavailable(error) }
    }

    /// Deletes objects under the prefix that are blob keys not in `referenced`, and aborts multipart
    /// uploads, when they are older than `grace`.
    ///
    /// Age is read from the key, which carries the time the writing host made it (`BlobKey/createdAt`): a server
    /// whose `LastModified` or `Initiated` is wrong (some report every upload as years old) never gets another
    /// host's upload in progress removed. Only keys made before keys carried their time fall back on the server's.
    public func collectGarbage(referenced: Set<BlobKey>, grace: TimeInterval) async throws -> Int {
        let cutoff = Date().addingTimeInterval(-grace)
        var removed = 0
        var continuation: String?
        repeat {
            let page = try await client.listObjects(continuation: continuation)
            for object in page.contents {
                guard object.key.hasPrefix(s3Location.prefix),
                      let key = BlobKey(String(object.key.dropFirst(s3Location.prefix.count))), !referenced.contains(key),
                      let made = key.createdAt ?? S3Timestamp.parse(object.lastModified), made < cutoff else { continue }
                try await client.deleteObject(object.key)
                removed += 1
            }
            continuation = page.isTruncated ? page.nextContinuationToken : nil
        } while continuation != nil
        var marker: (key: String?, uploadID: String?) = (nil, nil)
        repeat {
            let page = try await client.listMultipartUploads(keyMarker: marker.key, uploadIDMarker: marker.uploadID)
            for upload in page.uploads {
                let key = upload.key.hasPrefix(s3Location.prefix) ? BlobKey(String(upload.key.dropFirst(s3Location.prefix.count))) : nil
                guard let started = key?.createdAt ?? S3Timestamp.parse(upload.initiated), started < cutoff else { continue }
                try await client.abortMultipartUpload(upload.key, uploadID: upload.uploadID)
                removed += 1
            }
            marker = page.isTruncated ? (page.nextKeyMarker, page.nextUploadIDMarker) : (nil, nil)
        } while marker.key != nil
        return removed
    }

    /// Lists at most one key within five seconds: proves the endpoint answers and accepts the keys.
    public func checkReadiness() async throws {
        do {
            try await client.probeBucket(timeout: .seconds(5))
        } catch let error as S3Client.ServerError {
            throw BlobStoreError.unavailable("\(explain(error))")
        } catch let error as S3BlobStoreError {
            throw BlobStoreError.unavailable(error.description)
        }
    }

    /// The bucket, prefix, endpoint and region (never the credentials).
    public var location: String { s3Location.description }

    /// Everything under the prefix: object keys, and `upload:KEY` for each unfinished multipart upload.
    func contents() async throws -> Set<String> {
        var names: Set<String> = []
        var continuation: String?
        repeat {
            let page = try await client.listObjects(continuation: continuation)
            names.formUnion(page.contents.map(\.key))
            continuation = page.isTruncated ? page.nextContinuationToken : nil
        } while continuation != nil
        var marker: (key: String?, uploadID: String?) = (nil, nil)
        repeat {
            let page = try await client.listMultipartUploads(keyMarker: marker.key, uploadIDMarker: marker.uploadID)
            names.formUnion(page.uploads.map { "upload:\($0.key)" })
            marker = page.isTruncated ? (page.nextKeyMarker, page.nextUploadIDMarker) : (nil, nil)
        } while marker.key != nil
        return names
    }

    /// Creates the bucket.
    func createBucket() async throws { try await client.createBucket() }

    /// A server's answer in the words of ``S3BlobStoreError``.
    private func explain(_ error: S3Client.ServerError) -> S3BlobStoreError {
        let bucket = "bucket '\(s3Location.bucket)' at \(s3Location.endpoint.absoluteString)"
        switch error.code {
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken":
            return .badCredentials("the S3 server refused the credentials for \(bucket) (\(error.status.code) \(error.code))")
        case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException":
            let actual = error.bucketRegion.map { ": the bucket is in \($0)" } ?? ""
            return .wrongRegion("region \(s3Location.region) is wrong for \(bucket)\(actual) (\(error.status.code) \(error.code))")
        case "NoSuchBucket":
            return .noSuchBucket("there is no \(bucket)")
        default:
            if error.status == .movedPermanently, let region = error.bucketRegion {
                return .wrongRegion("region \(s3Location.region) is wrong for \(bucket): the bucket is in \(region)")
            }
            return .requestFailed("the S3 server answered \(error) for \(bucket)")
        }
    }
}

/// The response `read` already has, handed to the first iteration only.
private final class FirstResponse: Sendable {
    private let response: NIOLockedValueBox<HTTPClientResponse?>
    init(_ response: HTTPClientResponse) { self.response = NIOLockedValueBox(response) }
    func take() -> HTTPClientResponse? { response.withLockedValue { value in defer { value = nil }; return value } }
}
