import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import WOPIHost
import WOPIStoreTesting
@testable import WOPIBlobStoreS3

/// The S3 store against a real SeaweedFS that checks signatures.
@Suite("S3 blob store on SeaweedFS")
struct S3BlobStoreTests {
    @Test("keeps every blob store promise", arguments: BlobStoreConformance.Check.allCases)
    func conformance(_ check: BlobStoreConformance.Check) async throws {
        try await BlobStoreConformance {
            let store = try await SeaweedFS.makeStore()
            return .init(store: store, contents: { try await store.contents() })
        }.run(check)
    }

    @Test("A wrong secret is refused with 403 SignatureDoesNotMatch, named as bad credentials")
    func wrongSecret() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let good = try await SeaweedFS.makeStore()
        let client = S3Client(location: good.s3Location, credentials: SeaweedFS.credentials(server, secret: "not-the-secret"), http: SeaweedFS.http)
        await #expect {
            try await client.probeBucket(timeout: .seconds(10))
        } throws: { error in
            guard let error = error as? S3Client.ServerError else { return false }
            return error.status.code == 403 && error.code == "SignatureDoesNotMatch"
        }
        await #expect(throws: S3BlobStoreError.self) {
            _ = try await S3BlobStore.connect(to: good.s3Location, credentials: SeaweedFS.credentials(server, secret: "not-the-secret"), http: SeaweedFS.http)
        }
        do {
            _ = try await S3BlobStore.connect(to: good.s3Location, credentials: SeaweedFS.credentials(server, secret: "not-the-secret"), http: SeaweedFS.http)
        } catch let error as S3BlobStoreError {
            guard case .badCredentials(let text) = error else { Issue.record("expected bad credentials, got \(error)"); return }
            #expect(text.contains("SignatureDoesNotMatch") && !text.contains("not-the-secret"))
        }
    }

    @Test("A missing bucket and an unreachable endpoint are named as such, within seconds")
    func missingBucketAndNoEndpoint() async throws {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let missing = try SeaweedFS.location(server, bucket: SeaweedFSTestServer.makeBucketName())
        await #expect(throws: S3BlobStoreError.noSuchBucket("there is no bucket '\(missing.bucket)' at \(server.endpoint)")) {
            _ = try await S3BlobStore.connect(to: missing, credentials: SeaweedFS.credentials(server), http: SeaweedFS.http)
        }
        let closedPort = try LocalPort.free()
        let nowhere = try S3Location(parsing: "s3://\(missing.bucket)?endpoint=http://127.0.0.1:\(closedPort)&region=us-east-1")
        let started = Date()
        await #expect {
            _ = try await S3BlobStore.connect(to: nowhere, credentials: SeaweedFS.credentials(server), http: SeaweedFS.http)
        } throws: { error in
            guard case S3BlobStoreError.unreachable(let text) = error else { return false }
            return text.contains("127.0.0.1:\(closedPort)")
        }
        // The bound guards against retrying for minutes; it is wide because this task, in the full parallel
        // suite on two cores, can wait tens of seconds for a thread after the answer is in.
        #expect(Date().timeIntervalSince(started) < 100, "a refused connection is reported within the probe's timeout, not after minutes of retries")
    }

    @Test("Reads are consecutive 8 MiB ranged GETs that stitch back to the exact bytes; an empty object asks for no range")
    func rangedReads() async throws {
        let size = 2 * S3BlobStore.readRangeSize + 5
        #expect(S3BlobStore.range(from: 0, size: size) == "bytes=0-8388607")
        #expect(S3BlobStore.range(from: S3BlobStore.readRangeSize, size: size) == "bytes=8388608-16777215")
        #expect(S3BlobStore.range(from: 2 * S3BlobStore.readRangeSize, size: size) == "bytes=16777216-16777220")
        #expect(S3BlobStore.range(from: 0, size: 0) == nil)

        let store = try await SeaweedFS.makeStore()
        var bytes = ByteBuffer()
        for index in 0..<Int(size) { bytes.writeInteger(UInt8(truncatingIfNeeded: index &* 31 &+ index >> 13)) }
        let chunks = stride(from: 0, to: Int(size), by: 1_000_000).map { bytes.getSlice(at: $0, length: min(1_000_000, Int(size) - $0))! }
        let blob = try await store.write(AsyncStreamBody(chunks), maximumSize: size)
        var back = ByteBuffer()
        for try await chunk in try await store.read(blob.key, size: blob.size) { var chunk = chunk; back.writeBuffer(&chunk) }
        #expect(back == bytes, "three ranges, the last of 5 bytes, read back byte for byte")
        let empty = try await store.write(AsyncStreamBody([ByteBuffer]()), maximumSize: 1)
        var none = 0
        for try await chunk in try await store.read(empty.key, size: 0) { none += chunk.readableBytes }
        #expect(none == 0)
    }

    @Test("A body of exactly the part size goes up in one PUT; one byte more as a multipart upload")
    func partSizeBoundary() async throws {
        let store = try await SeaweedFS.makeStore()
        for (size, multipart) in [(S3BlobStore.minimumPartSize, false), (S3BlobStore.minimumPartSize + 1, true)] {
            let blob = try await store.write(AsyncStreamBody([ByteBuffer(repeating: 7, count: size)]), maximumSize: Int64(size))
            let head = try await store.client.send(.HEAD, key: store.client.objectKey(blob.key.rawValue), timeout: .seconds(10))
            // A multipart object's ETag ends in "-" and its number of parts.
            let etag = head.headers.first(name: "ETag") ?? ""
            #expect(!etag.isEmpty && etag.contains("-") == multipart, "\(size) bytes: ETag \(etag)")
        }
    }

    @Test("The sweep judges age by the time in the key, not by the server's clocks: an old key goes, a young one stays")
    func sweepReadsTheKey() async throws {
        let store = try await SeaweedFS.makeStore()
        let client = store.client
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        let (youngUpload, oldUpload) = (client.objectKey(BlobKey.random().rawValue), client.objectKey(BlobKey.random(at: twoHoursAgo).rawValue))
        let (youngObject, oldObject) = (client.objectKey(BlobKey.random().rawValue), client.objectKey(BlobKey.random(at: twoHoursAgo).rawValue))
        _ = try await client.createMultipartUpload(youngUpload)
        _ = try await client.createMultipartUpload(oldUpload)
        try await client.putObject(youngObject, body: ByteBuffer(string: "young"))
        try await client.putObject(oldObject, body: ByteBuffer(string: "old"))
        // The server says all four began just now; only their keys tell them apart.
        #expect(try await store.collectGarbage(referenced: [], grace: 3600) == 2)
        #expect(try await store.contents() == [youngObject, "upload:\(youngUpload)"])
    }

    @Test("A multipart upload stores parts of the part size and leaves no upload open")
    func multipart() async throws {
        let store = try await SeaweedFS.makeStore()
        let count = 2 * S3BlobStore.minimumPartSize + 1_000
        var bytes = ByteBuffer()
        for index in 0..<count { bytes.writeInteger(UInt8(truncatingIfNeeded: index &* 7)) }
        let chunks = stride(from: 0, to: count, by: 100_000).map { bytes.getSlice(at: $0, length: min(100_000, count - $0))! }
        let blob = try await store.write(AsyncStreamBody(chunks), maximumSize: Int64(count))
        #expect(blob.size == Int64(count))
        var back = ByteBuffer()
        for try await chunk in try await store.read(blob.key, size: blob.size) { var chunk = chunk; back.writeBuffer(&chunk) }
        #expect(back == bytes)
        #expect(try await store.contents() == ["bodies/\(blob.key.rawValue)"], "one object, no unfinished upload")
    }

    @Test("The location URL parses bucket, prefix, endpoint and region, and refuses what it cannot use")
    func locationParsing() throws {
        let location = try S3Location(parsing: "s3://wopi-bodies/tenant/a?endpoint=http://127.0.0.1:8333&region=eu-west-3")
        #expect(location.bucket == "wopi-bodies")
        #expect(location.prefix == "tenant/a/")
        #expect(location.endpoint.absoluteString == "http://127.0.0.1:8333")
        #expect(location.region == "eu-west-3")
        #expect(try S3Location(parsing: "s3://wopi-bodies?region=eu-west-3").endpoint.absoluteString == "https://s3.eu-west-3.amazonaws.com")
        for bad in ["s3://", "http://bucket", "s3://Bad_Bucket", "s3://bucket?endpoint=ftp://x", "s3://bucket?region=", "s3://bucket?colour=red"] {
            #expect(throws: S3BlobStoreError.self, "\(bad)") { _ = try S3Location(parsing: bad) }
        }
    }

    @Test("A credentials file in the AWS shared-credentials format is read from [default]")
    func credentialsFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try "# keys\n[other]\naws_access_key_id = WRONG\n[default]\naws_access_key_id = AKID\naws_secret_access_key = s3cr3t\n"
            .write(to: file, atomically: true, encoding: .utf8)
        #expect(try S3Credentials.load(file: file.path) == S3Credentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t"))
        try "[default]\naws_access_key_id = AKID\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: S3BlobStoreError.badCredentials("the S3 credentials file '\(file.path)' has no aws_secret_access_key in [default]")) {
            _ = try S3Credentials.load(file: file.path)
        }
    }
}

/// Given chunks as a request body.
struct AsyncStreamBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]
    init(_ chunks: [ByteBuffer]) { self.chunks = chunks }
    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<ByteBuffer>
        mutating func next() async throws -> ByteBuffer? { rest.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}
