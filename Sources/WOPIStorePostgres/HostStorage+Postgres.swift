import Logging
import WOPIHost

extension HostStorage {
    /// Metadata in the PostgreSQL database at `database`, bodies in `blobStore`: a store every host reaches.
    ///
    /// Connects, migrates the schema when needed, and closes the connections in `HostStorage/close()`.
    /// A host keeps ``PostgresStore/defaultConnections`` open; a one-shot command needs one or two.
    public static func postgres(database: PostgresDatabaseURL, blobStore: any BlobStore,
                                maximumConnections: Int = PostgresStore.defaultConnections,
                                logger: Logger = Logger(label: "wopi.storage")) async throws -> HostStorage {
        let store = try await PostgresStore.connect(to: database, maximumConnections: maximumConnections, logger: logger)
        return HostStorage(store: store, blobs: blobStore, close: { await store.close() })
    }
}
