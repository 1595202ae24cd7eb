import Foundation
import Logging
import WOPICore

/// What a host runs on: a metadata store (``WOPIStore`` and ``AuthorizationStore``) and a store of
/// document bodies (any ``BlobStore``; ``FileSystemBlobStore`` by default).
///
/// The drivers live in their own products, so an embedder links only the database it uses.
/// `WOPIStoreSQLite`'s `HostStorage.embedded(data:blobs:)` keeps both in one data folder: `wopi.sqlite`
/// and `blobs/`. For several hosts, `WOPIStorePostgres`'s `HostStorage.postgres(database:blobStore:maximumConnections:logger:)`
/// puts the metadata in one database, and the bodies in a store every host reaches: a folder every host
/// mounts, or object storage. `wopi serve` and the management commands open the same storage at the same
/// time; the database keeps them consistent.
public struct HostStorage: Sendable {
    /// Users, containers, files, locks, secrets, and sign-in records.
    public let store: any WOPIStore & AuthorizationStore
    /// Document bodies.
    public let blobs: any BlobStore
    private let closeStore: @Sendable () async -> Void

    /// Storage over your own stores; `close` runs once from ``close()``.
    public init(store: any WOPIStore & AuthorizationStore, blobs: any BlobStore, close: @escaping @Sendable () async -> Void = {}) {
        self.store = store
        self.blobs = blobs
        self.closeStore = close
    }

    /// Releases the store's connections.
    public func close() async { await closeStore() }

    /// Runs `body` with this storage, then closes it, also when `body` throws.
    public func closing<Result>(after body: (HostStorage) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    /// A backend over this storage.
    public func backend(configuration: WOPIHostConfiguration) async throws -> WOPIBackend {
        try await WOPIBackend(store: store, blobs: blobs, configuration: configuration)
    }

    /// Stores a file from disk in a user's container, streaming it. Characters Office refuses in
    /// names are replaced (`WOPIName.sanitized(fileName:)`), so every stored name is safe to show Office.
    public func importFile(at path: URL, as name: String, into containerID: ResourceID, maximumSize: Int64) async throws -> FileRecord {
        let handle = try FileHandle(forReadingFrom: path)
        defer { try? handle.close() }
        return try await record(try await blobs.write(FileChunks(handle: handle), maximumSize: maximumSize), as: name, into: containerID)
    }

    /// Stores bytes as a new file in a user's container, with a sanitized name.
    public func importFile(data: Data, as name: String, into containerID: ResourceID) async throws -> FileRecord {
        try await record(try await blobs.write(DataChunks(data: data), maximumSize: Int64(data.count)), as: name, into: containerID)
    }

    /// Records a stored body as a new file; when that fails the body is removed again.
    private func record(_ blob: StoredBlob, as name: String, into containerID: ResourceID) async throws -> FileRecord {
        do {
            return try await store.createFile(named: WOPIName.sanitized(fileName: name).rawValue, in: containerID, blob: blob, replacing: false, now: Date()).file
        } catch {
            try? await blobs.delete(blob.key)
            throw error
        }
    }
}
