import Foundation
import WOPIHost
import WOPIStorePostgres
import WOPIStoreSQLite

extension HostStorage {
    /// PostgreSQL at `database` when given, else SQLite in `data`; bodies in the folder `blobs` (default `<data>/blobs`):
    /// what `wopi serve` opens for the same options.
    static func open(data: URL, database: PostgresDatabaseURL?, blobs: URL?) async throws -> HostStorage {
        guard let database else { return try embedded(data: data, blobs: blobs) }
        let bodies = try FileSystemBlobStore(folder: blobs ?? data.standardizedFileURL.appendingPathComponent("blobs"))
        return try await postgres(database: database, blobStore: bodies)
    }
}
