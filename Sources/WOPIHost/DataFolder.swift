import Foundation
import WOPICore

/// The embedded default's one folder: `wopi.sqlite` for metadata, `blobs/` for bodies, `tmp/` for uploads in flight.
///
/// `wopi serve` and the `wopi users`/`files`/`token` commands open the same folder at the same
/// time; SQLite's locking keeps them consistent.
public struct DataFolder: Sendable {
    /// The folder.
    public let url: URL
    /// The metadata store.
    public let store: SQLiteStore
    /// The body store.
    public let blobs: FileSystemBlobStore

    /// Opens (creating if needed) the data folder at `path`.
    public init(path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        store = try SQLiteStore(path: url.appendingPathComponent("wopi.sqlite").path)
        blobs = try FileSystemBlobStore(root: url)
    }

    /// A backend over this folder.
    public func backend(configuration: WOPIHostConfiguration) async throws -> WOPIBackend {
        try await WOPIBackend(store: store, blobs: blobs, configuration: configuration)
    }

    /// Stores a file from disk in a user's container, streaming it. Characters Office refuses in
    /// names are replaced (`WOPIName.sanitized`), so every stored name is safe to show Office.
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
            return try await store.createFile(named: WOPIName.sanitized(name).rawValue, in: containerID, blob: blob, replacing: false, now: Date()).file
        } catch {
            try? await blobs.delete(blob.key)
            throw error
        }
    }
}
