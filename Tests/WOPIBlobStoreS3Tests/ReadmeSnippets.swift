import Foundation
import Hummingbird
import WOPIBlobStoreS3
import WOPIAuthorization
import WOPIHost
import Testing
import WOPIStoreTesting
import WOPIStorePostgres

// The README's Swift for embedding the host with sign-in, for the S3 store and for a blob store of your own, word for word, so that it is
// compiled code (DocumentationSnippetTests checks that every README block stands here or in Snippets.swift).

/// The README's host with sign-in and pages, as `wopi serve` builds it. Compiled, not run.
func readmeRouterWithSignIn(storage: HostStorage, secret: String) async throws -> Router<WOPIRequestContext> {
    var configuration = WOPIHostConfiguration(publicURL: URL(string: "https://wopi.contoso.com")!)
    configuration.officeRegistration = try OfficeRegistration(clientID: "office", clientSecret: secret)
    let backend = try await storage.backend(configuration: configuration)
    let router = WOPIHostApplication.router(backend: backend, extensions: [AuthorizationRoutes()])
    return router
}

/// The README's lines that give a host its bodies in S3. Compiled, not run: they name a real bucket.
func readmeS3Storage(databaseURL: PostgresDatabaseURL) async throws -> HostStorage {
    let http = S3BlobStore.makeHTTPClient()
    let bodies = try await S3BlobStore.connect(to: S3Location(parsing: "s3://wopi-bodies?region=eu-west-3"),
                                               credentials: S3Credentials.fromEnvironment()!, http: http)
    let storage = try await HostStorage.postgres(database: databaseURL, blobStore: bodies)
    return storage
}

/// The README's "your own blob store", with the folder store standing in for the reader's.
@Suite("README: a blob store of your own") struct ReadmeOwnBlobStore {
@Test(arguments: BlobStoreConformance.Check.allCases)
func myStore(_ check: BlobStoreConformance.Check) async throws {
    try await BlobStoreConformance {
        let store = try await MyBlobStore.makeEmpty()       // a location of its own for each check
        return .init(store: store, contents: { try await store.everythingItHolds() })
    }.run(check)
}
}

/// What the README calls `MyBlobStore`: here a folder store in a fresh temporary folder.
enum MyBlobStore {
    static func makeEmpty() async throws -> FileSystemBlobStore {
        try FileSystemBlobStore(folder: FileManager.default.temporaryDirectory.appendingPathComponent("readme-blobs-\(UUID().uuidString)"))
    }
}

extension FileSystemBlobStore {
    /// Every file under the store's folder, staging files included.
    func everythingItHolds() async throws -> Set<String> {
        var files: Set<String> = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true { files.insert(url.path) }
        }
        return files
    }
}
