import Foundation
import WOPIHost
import PostgresNIO
import WOPIStoreSQL

/// The statements every WOPI request runs, prepared once per connection (PostgresNIO's
/// `PostgresPreparedStatement`): the server parses and plans each once instead of on every request, and
/// a call is one Bind/Execute round trip. Rows come as the shared decoders read them: the file columns
/// in the order of `fileColumns`, the user columns in that of `userColumns`.
enum PostgresStatements {

    /// For each (file, user) pair: the caller, the file with its folder's name and, for anyone but the owner, the
    /// best share on the folder chain and the share on the file itself ('editor' > 'viewer' as text, so `max()` is
    /// the higher role). The chain is only walked when the share columns are read, so the owner's request never
    /// walks it. Each row starts with its pair's position (from 1); a pair whose user does not exist has no row.
    /// One statement answers a whole batch of ``StatementBatcher`` calls.
    struct FileAccess: PostgresPreparedStatement {
        static let sql = """
            SELECT q.n, u.id, u.name, u.display_name, u.password_hash, u.root_container_id, u.user_info,
                   \(PostgresStore.qualified(PostgresStore.fileColumns, by: "f")), c.name,
                   CASE WHEN f.owner_id = u.id THEN NULL ELSE (
                       WITH RECURSIVE chain(id) AS (
                           SELECT f.container_id
                           UNION SELECT p.parent_id FROM containers p JOIN chain ON p.id = chain.id WHERE p.parent_id IS NOT NULL
                       )
                       SELECT max(s.role) FROM shares s JOIN chain ON s.container_id = chain.id WHERE s.user_id = u.id) END,
                   CASE WHEN f.owner_id = u.id THEN NULL ELSE
                       (SELECT max(s.role) FROM shares s WHERE s.file_id = f.id AND s.user_id = u.id) END
            FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(file_id, user_id, n)
            JOIN users u ON u.id = q.user_id
            LEFT JOIN files f ON f.id = q.file_id AND f.trash_id IS NULL
            LEFT JOIN containers c ON c.id = f.container_id
            """
        typealias Row = SQLRow

        var fileIDs: [String]
        var userIDs: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(fileIDs)
            bindings.append(userIDs)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try PostgresSession.row(row) }
    }

    /// A file by id.
    struct File: PostgresPreparedStatement {
        static let sql = "SELECT \(PostgresStore.fileColumns) FROM files WHERE id = $1 AND trash_id IS NULL"
        typealias Row = SQLRow

        var id: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try PostgresSession.row(row) }
    }

    /// Sets each file's lock if it is still the one read before (a compare-and-set), for a batch of lock
    /// changes in one statement and so one commit: returns each changed file afterwards after its change's
    /// position (from 1); a change whose file's lock changed in between has no row. Arrays cannot hold NULL
    /// here, so no lock is `''` (a lock value is never empty) and no expiry is NaN. The expiry read before
    /// has passed through `Date`, which may change its last bit, so it matches within a microsecond: a lock
    /// set again since then has a new expiry minutes away. Two changes of one file in a batch update it once;
    /// the other finds no row and is decided again.
    ///
    /// The commit does not wait for the disk (`synchronous_commit` off for this transaction only): a lock
    /// lives minutes, and the embedded SQLite store (WAL, `synchronous = NORMAL`) gives the same promise, where
    /// a power cut can undo the last changes but never leaves a torn one. A database crash can undo at most
    /// the lock changes of its last moment (three `wal_writer_delay`s, 0.6 s by default); a client whose lock
    /// was undone gets 409 and locks again. Saves and every other change still wait for the disk.
    struct SetLocks: PostgresPreparedStatement {
        static let sql = """
            UPDATE files f SET lock_value = NULLIF(q.new_value, ''), lock_expires_at = NULLIF(q.new_expiry, 'NaN')
            FROM unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::float8[])
                 WITH ORDINALITY AS q(id, new_value, new_expiry, old_value, old_expiry, n),
                 (SELECT set_config('synchronous_commit', 'off', true)) AS durability
            WHERE f.id = q.id AND f.lock_value IS NOT DISTINCT FROM NULLIF(q.old_value, '')
              AND (f.lock_expires_at IS NOT DISTINCT FROM NULLIF(q.old_expiry, 'NaN')
                   OR abs(f.lock_expires_at - NULLIF(q.old_expiry, 'NaN')) < 0.000001)
            RETURNING q.n, \(PostgresStore.qualified(PostgresStore.fileColumns, by: "f"))
            """
        typealias Row = SQLRow

        /// One compare-and-set: the new lock, and the lock as read.
        struct Change: Sendable {
            var id: String
            var newValue: String?
            var newExpiry: Double?
            var oldValue: String?
            var oldExpiry: Double?
        }

        var changes: [Change]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(changes.map(\.id))
            bindings.append(changes.map { $0.newValue ?? "" })
            bindings.append(changes.map { $0.newExpiry ?? .nan })
            bindings.append(changes.map { $0.oldValue ?? "" })
            bindings.append(changes.map { $0.oldExpiry ?? .nan })
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try PostgresSession.row(row) }
    }
}
