import Foundation
import Logging
import WOPICore

/// What a host runs on: a metadata store (``WOPIStore`` and ``AuthorizationStore``) and a store of
/// document bodies (any ``BlobStore``; ``FileSystemBlobStore`` by default).
///
/// The embedded default keeps both in one data folder: `wopi.sqlite` and `blobs/`. For several hosts,
/// ``open(data:database:blobs:logger:)`` with a PostgreSQL URL puts the metadata in that database, and
/// `blobs` is a store every host reaches: a folder every host mounts, or object storage. `wopi serve` and the management commands open the same
/// storage at the same time; the database keeps them consistent.
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

    /// The embedded default: SQLite at `<data>/wopi.sqlite`, bodies in the folder `blobs` (default `<data>/blobs`).
    public static func embedded(data: URL, blobs: URL? = nil) throws -> HostStorage {
        let data = data.standardizedFileURL
        return try embedded(data: data, blobStore: try FileSystemBlobStore(folder: blobs ?? data.appendingPathComponent("blobs")))
    }

    /// SQLite at `<data>/wopi.sqlite`, bodies in `blobStore`.
    public static func embedded(data: URL, blobStore: any BlobStore) throws -> HostStorage {
        let data = data.standardizedFileURL
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return HostStorage(store: try SQLiteStore(path: data.appendingPathComponent("wopi.sqlite").path), blobs: blobStore)
    }

    /// PostgreSQL at `database` when given, else SQLite in `data`; bodies in the folder `blobs` (default `<data>/blobs`).
    public static func open(data: URL, database: PostgresDatabaseURL?, blobs: URL?,
                            logger: Logger = Logger(label: "wopi.storage")) async throws -> HostStorage {
        let bodies = try FileSystemBlobStore(folder: blobs ?? data.standardizedFileURL.appendingPathComponent("blobs"))
        return try await open(data: data, database: database, blobStore: bodies, logger: logger)
    }

    /// PostgreSQL at `database` when given, else SQLite in `data`; bodies in `blobStore`.
    public static func open(data: URL, database: PostgresDatabaseURL?, blobStore: any BlobStore,
                            logger: Logger = Logger(label: "wopi.storage")) async throws -> HostStorage {
        guard let database else { return try embedded(data: data, blobStore: blobStore) }
        let store = try await PostgresStore.connect(to: database, logger: logger)
        return HostStorage(store: store, blobs: blobStore, close: { await store.close() })
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
