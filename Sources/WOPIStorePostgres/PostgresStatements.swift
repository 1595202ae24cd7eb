import Foundation
import WOPIHost
import PostgresNIO

/// The statements every WOPI request runs, prepared once per connection (PostgresNIO's
/// `PostgresPreparedStatement`): the server parses and plans each once instead of on every request, and
/// a call is one Bind/Execute round trip. Columns come in the order ``PostgresStore`` decodes them.
enum PostgresStatements {
    /// The file columns of ``PostgresStore/Columns/file``, in order.
    typealias FileRow = (String, String, String, String, Int64, Int64, String, String, Double, String?, Double?)

    /// The caller, the file with its folder's name and, for anyone but the owner, the best share on the folder
    /// chain and the share on the file itself ('editor' > 'viewer' as text, so `max()` is the higher role).
    /// The chain is only walked when the share columns are read, so the owner's request never walks it.
    struct FileAccess: PostgresPreparedStatement {
        static let sql = """
            WITH RECURSIVE chain(id) AS (
                SELECT container_id FROM files WHERE id = $1
                UNION SELECT c.parent_id FROM containers c JOIN chain ON c.id = chain.id WHERE c.parent_id IS NOT NULL
            )
            SELECT u.id, u.name, u.display_name, u.password_hash, u.root_container_id, u.user_info,
                   f.id, f.container_id, f.owner_id, f.name, f.size, f.version, f.sha256, f.blob_key, f.modified_at,
                   f.lock_value, f.lock_expires_at, c.name,
                   CASE WHEN f.owner_id = u.id THEN NULL ELSE
                       (SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END,
                   CASE WHEN f.owner_id = u.id THEN NULL ELSE
                       (SELECT max(s.role) FROM shares s WHERE s.file_id = f.id AND s.user_id = u.id) END
            FROM users u LEFT JOIN files f ON f.id = $1 AND f.trash_id IS NULL LEFT JOIN containers c ON c.id = f.container_id
            WHERE u.id = $2
            """
        typealias Row = (String, String, String, String, String, String?, String?, String?, String?, String?, Int64?, Int64?, String?,
                         String?, Double?, String?, Double?, String?, String?, String?)

        var fileID: String
        var userID: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(fileID)
            bindings.append(userID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// A file by id.
    struct File: PostgresPreparedStatement {
        static let sql = "SELECT \(PostgresStore.Columns.file) FROM files WHERE id = $1 AND trash_id IS NULL"
        typealias Row = FileRow

        var id: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Sets a file's lock if it is still the one read before (a compare-and-set): returns the file
    /// afterwards, or no row when another request changed the lock in between.
    struct SetLock: PostgresPreparedStatement {
        static let sql = """
            UPDATE files SET lock_value = $2, lock_expires_at = $3
            WHERE id = $1 AND lock_value IS NOT DISTINCT FROM $4 AND lock_expires_at IS NOT DISTINCT FROM $5
            RETURNING \(PostgresStore.Columns.file)
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .text, .float8, .text, .float8]
        typealias Row = FileRow

        var id: String
        var newValue: String?
        var newExpiry: Double?
        var oldValue: String?
        var oldExpiry: Double?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(id)
            bindings.append(newValue)
            bindings.append(newExpiry)
            bindings.append(oldValue)
            bindings.append(oldExpiry)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
