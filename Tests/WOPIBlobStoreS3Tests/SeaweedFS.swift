import AsyncHTTPClient
import Foundation
import TestSupport
@testable import WOPIBlobStoreS3

/// Stores over the shared SeaweedFS, each in a bucket of its own.
enum SeaweedFS {
    static let http = S3BlobStore.makeHTTPClient()

    static func credentials(_ server: SeaweedFSTestServer, secret: String? = nil) -> S3Credentials {
        S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey)
    }

    static func location(_ server: SeaweedFSTestServer, bucket: String, prefix: String = "") throws -> S3Location {
        try S3Location(parsing: "s3://\(bucket)/\(prefix)?endpoint=\(server.endpoint)&region=us-east-1")
    }

    /// A store in a new bucket.
    static func makeStore(prefix: String = "bodies/", partSize: Int = S3BlobStore.minimumPartSize) async throws -> S3BlobStore {
        let server = try await offPool { try SeaweedFSTestServer.shared() }
        let store = S3BlobStore(location: try location(server, bucket: SeaweedFSTestServer.makeBucketName(), prefix: prefix),
                                credentials: credentials(server), http: http, partSize: partSize)
        try await store.createBucket()
        return store
    }
}
