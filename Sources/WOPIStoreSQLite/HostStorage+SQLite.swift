import Foundation
import WOPIHost

extension HostStorage {
    /// The embedded default: SQLite at `<data>/wopi.sqlite`, bodies in the folder `blobs` (default `<data>/blobs`).
    public static func embedded(data: URL, blobs: URL? = nil) throws -> HostStorage {
        let data = data.standardizedFileURL
        return try embedded(data: data, blobStore: try FileSystemBlobStore(folder: blobs ?? data.appendingPathComponent("blobs")))
    }

    /// SQLite at `<data>/wopi.sqlite`, bodies in `blobStore`.
    public static func embedded(data: URL, blobStore: any BlobStore) throws -> HostStorage {
        HostStorage(store: try SQLiteStore(dataFolder: data), blobs: blobStore)
    }
}
