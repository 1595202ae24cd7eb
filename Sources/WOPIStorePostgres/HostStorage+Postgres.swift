import Logging
import WOPIHost

extension HostStorage {
    /// Metadata in the PostgreSQL database at `database`, bodies in `blobStore`: a store every host reaches.
    ///
    /// Connects, migrates the schema when needed, and closes the connections in `HostStorage/close()`.
    public static func postgres(database: PostgresDatabaseURL, blobStore: any BlobStore,
                                logger: Logger = Logger(label: "wopi.storage")) async throws -> HostStorage {
        let store = try await PostgresStore.connect(to: database, logger: logger)
        return HostStorage(store: store, blobs: blobStore, close: { await store.close() })
    }
}
