/// A store's schema cannot be used by this binary.
public enum StoreSchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database was migrated by a newer WOPIKit: running an older binary on it could lose data.
    case newerThanBinary(found: String, supported: String)

    /// One line saying what was found and what to do.
    public var description: String {
        switch self {
        case .newerThanBinary(let found, let supported):
            "the database schema (\(found)) is newer than this wopi binary supports (\(supported)); upgrade wopi before starting it on this database"
        }
    }
}
