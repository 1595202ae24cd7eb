import Logging
import PostgresNIO
import WOPIHost

/// The PostgreSQL store's schema, as numbered migrations applied at start.
///
/// Append new migrations; never edit a shipped one. Every host runs ``migrate(_:logger:)`` on start:
/// a session-level advisory lock makes concurrent starts apply each migration once, and a database
/// migrated by a newer binary (a version this list does not have) is refused rather than used.
///
/// The tables mirror `SQLiteStore`'s. Names compare case-insensitively for ASCII only, as SQLite's
/// `NOCASE` does, through `wopi_fold()`, so both stores accept and refuse the same names. Times are
/// seconds since 1970 as `double precision`, like SQLite's `REAL`, so a `Date` round-trips exactly.
enum PostgresSchema {
    struct Migration {
        let version: Int
        let name: String
        let sql: [String]
    }

    /// Any constant shared by every WOPIKit host; it keys the advisory lock around migrations.
    static let migrationLockKey: Int64 = 0x5750_4B49_545F_4D47 // "WPKIT_MG"

    static let migrations: [Migration] = [
        Migration(version: 1, name: "wopi", sql: [
            """
            CREATE FUNCTION wopi_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT translate($1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') $$
            """,
            "CREATE TABLE settings (name text PRIMARY KEY, value bytea NOT NULL)",
            """
            CREATE TABLE users (
                id text PRIMARY KEY,
                name text NOT NULL,
                display_name text NOT NULL,
                password_hash text NOT NULL,
                root_container_id text NOT NULL,
                user_info text
            )
            """,
            "CREATE UNIQUE INDEX users_name ON users (wopi_fold(name))",
            """
            CREATE TABLE containers (
                id text PRIMARY KEY,
                parent_id text REFERENCES containers(id),
                owner_id text NOT NULL REFERENCES users(id),
                name text NOT NULL
            )
            """,
            // Roots have a NULL parent; NULLs are distinct in a unique index, so every user may have one.
            "CREATE UNIQUE INDEX containers_sibling_name ON containers (parent_id, wopi_fold(name))",
            "CREATE INDEX containers_owner ON containers (owner_id)",
            """
            CREATE TABLE files (
                id text PRIMARY KEY,
                container_id text NOT NULL REFERENCES containers(id),
                owner_id text NOT NULL REFERENCES users(id),
                name text NOT NULL,
                size bigint NOT NULL,
                version bigint NOT NULL,
                sha256 text NOT NULL,
                blob_key text NOT NULL,
                modified_at double precision NOT NULL,
                lock_value text,
                lock_expires_at double precision
            )
            """,
            "CREATE UNIQUE INDEX files_name ON files (container_id, wopi_fold(name))",
            "CREATE INDEX files_owner ON files (owner_id)",
            // Version numbers come from one sequence so a version is never handed out twice, on any host.
            "CREATE SEQUENCE file_version_numbers",
            """
            CREATE TABLE oauth_codes (
                digest text PRIMARY KEY,
                client_id text NOT NULL,
                redirect_uri text NOT NULL,
                redirect_uri_required boolean NOT NULL,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                scope text NOT NULL,
                code_challenge text,
                session_context text,
                grant_id text NOT NULL,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                redeemed_at double precision
            )
            """,
            "CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at)",
            "CREATE INDEX oauth_codes_user ON oauth_codes (user_id)",
            """
            CREATE TABLE oauth_tokens (
                digest text PRIMARY KEY,
                kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
                grant_id text NOT NULL,
                client_id text NOT NULL,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                scope text NOT NULL,
                session_context text,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                revoked_at double precision
            )
            """,
            "CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id)",
            "CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at)",
            "CREATE INDEX oauth_tokens_user ON oauth_tokens (user_id)",
        ]),
        // Version history and lock administration.
        Migration(version: 2, name: "version-history", sql: [
            "ALTER TABLE files ADD COLUMN modified_by text",
            """
            CREATE TABLE file_versions (
                file_id text NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                version bigint NOT NULL,
                size bigint NOT NULL,
                sha256 text NOT NULL,
                blob_key text NOT NULL,
                modified_at double precision NOT NULL,
                modified_by text,
                PRIMARY KEY (file_id, version)
            )
            """,
            "CREATE INDEX file_versions_blob ON file_versions (blob_key)",
            "CREATE INDEX files_blob ON files (blob_key)",
            "CREATE INDEX files_lock_expiry ON files (lock_expires_at) WHERE lock_value IS NOT NULL",
        ]),
        // AddActivities, as SQLite's v4-activities.
        Migration(version: 3, name: "activities", sql: [
            """
            CREATE TABLE activities (
                file_id text NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                activity_id text NOT NULL,
                kind text NOT NULL,
                actor_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                received_at double precision NOT NULL,
                activity_json text NOT NULL,
                PRIMARY KEY (file_id, activity_id)
            )
            """,
            "CREATE INDEX activities_actor ON activities (actor_id)",
            """
            CREATE TABLE activity_mentions (
                file_id text NOT NULL,
                activity_id text NOT NULL,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                PRIMARY KEY (file_id, activity_id, user_id),
                FOREIGN KEY (file_id, activity_id) REFERENCES activities (file_id, activity_id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX activity_mentions_user ON activity_mentions (user_id)",
        ]),
        // Sharing, as SQLite's v5-shares.
        Migration(version: 4, name: "shares", sql: [
            """
            CREATE TABLE shares (
                file_id text REFERENCES files(id) ON DELETE CASCADE,
                container_id text REFERENCES containers(id) ON DELETE CASCADE,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                role text NOT NULL CHECK (role IN ('viewer', 'editor')),
                shared_at double precision NOT NULL,
                CHECK ((file_id IS NULL) <> (container_id IS NULL))
            )
            """,
            "CREATE UNIQUE INDEX shares_file_user ON shares (file_id, user_id) WHERE file_id IS NOT NULL",
            "CREATE UNIQUE INDEX shares_container_user ON shares (container_id, user_id) WHERE container_id IS NOT NULL",
            "CREATE INDEX shares_user ON shares (user_id)",
            "CREATE INDEX containers_parent ON containers (parent_id)",
        ]),
        // The fleet's audit trail and failed sign-ins, as SQLite's v6-audit-and-signin-failures.
        Migration(version: 5, name: "audit-and-signin-failures", sql: [
            """
            CREATE TABLE audit_events (
                sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                recorded_at double precision NOT NULL,
                event text NOT NULL,
                user_name text,
                file_id text,
                request_id text,
                details text NOT NULL
            )
            """,
            "CREATE INDEX audit_events_time ON audit_events (recorded_at, sequence)",
            "CREATE INDEX audit_events_user ON audit_events (wopi_fold(user_name), recorded_at, sequence)",
            "CREATE INDEX audit_events_file ON audit_events (file_id, recorded_at, sequence)",
            "CREATE INDEX audit_events_event ON audit_events (event, recorded_at, sequence)",
            "CREATE TABLE signin_failures (key text NOT NULL, failed_at double precision NOT NULL)",
            "CREATE INDEX signin_failures_key ON signin_failures (key, failed_at)",
            "CREATE INDEX signin_failures_time ON signin_failures (failed_at)",
        ]),
        // The trash, as SQLite's v7-trash.
        Migration(version: 6, name: "trash", sql: [
            "ALTER TABLE files ADD COLUMN trash_id text",
            "ALTER TABLE containers ADD COLUMN trash_id text",
            "CREATE INDEX files_trash ON files (trash_id) WHERE trash_id IS NOT NULL",
            "CREATE INDEX containers_trash ON containers (trash_id) WHERE trash_id IS NOT NULL",
            """
            CREATE TABLE trash_items (
                item_id text PRIMARY KEY,
                kind text NOT NULL CHECK (kind IN ('file', 'container')),
                owner_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                holder_id text NOT NULL,
                original_parent_id text NOT NULL,
                trashed_at double precision NOT NULL
            )
            """,
            "CREATE INDEX trash_items_owner ON trash_items (owner_id, trashed_at)",
            "CREATE INDEX trash_items_time ON trash_items (trashed_at)",
        ]),
        // The web front's sessions, as SQLite's v8-web-sessions.
        Migration(version: 7, name: "web-sessions", sql: [
            """
            CREATE TABLE web_sessions (
                digest text PRIMARY KEY,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at double precision NOT NULL,
                last_seen_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                user_agent text
            )
            """,
            "CREATE INDEX web_sessions_user ON web_sessions (user_id, created_at)",
            "CREATE INDEX web_sessions_expiry ON web_sessions (expires_at)",
        ]),
        // What kind of save made each content, as SQLite's v9-save-kinds.
        Migration(version: 8, name: "save-kinds", sql: [
            "ALTER TABLE files ADD COLUMN save_kinds integer",
            "ALTER TABLE file_versions ADD COLUMN save_kinds integer",
        ]),
        // Which template each new document was made from, as SQLite's v10-template-origins.
        Migration(version: 9, name: "template-origins", sql: [
            """
            CREATE TABLE template_origins (
                file_id text PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                template_id text NOT NULL REFERENCES files(id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX template_origins_template ON template_origins (template_id)",
        ]),
        // Lock changes as heap-only updates: an index on a lock column made every Lock and Unlock write a new entry
        // in each of the table's indexes and leave the old row behind for vacuum. `wopi locks` reads the table instead.
        // Free room on each page lets the new row version stay on the old row's page.
        Migration(version: 10, name: "lock-changes-in-place", sql: [
            "DROP INDEX files_lock_expiry",
            "ALTER TABLE files SET (fillfactor = 90)",
        ]),
        // Accounts linked to people at an OpenID Connect provider, and sign-ins under way, as SQLite's v11-identity-links.
        Migration(version: 11, name: "identity-links", sql: [
            """
            CREATE TABLE identity_links (
                issuer text NOT NULL,
                subject text NOT NULL,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                linked_at double precision NOT NULL,
                PRIMARY KEY (issuer, subject)
            )
            """,
            "CREATE UNIQUE INDEX identity_links_user ON identity_links (user_id, issuer)",
            """
            CREATE TABLE openid_sign_ins (
                state_digest text PRIMARY KEY,
                browser_digest text NOT NULL,
                continuation text NOT NULL,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL
            )
            """,
            "CREATE INDEX openid_sign_ins_expiry ON openid_sign_ins (expires_at)",
        ]),
    ]

    /// The newest version this binary knows.
    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the database to ``latestVersion``; throws `StoreSchemaError/newerThanBinary(found:supported:)`
    /// when it is already past it.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_lock(\(migrationLockKey))", logger: logger)
        do {
            try await applyMissing(connection, logger: logger)
        } catch {
            if !connection.isClosed { _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLockKey))", logger: logger) }
            throw error
        }
        try await connection.query("SELECT pg_advisory_unlock(\(migrationLockKey))", logger: logger)
    }

    private static func applyMissing(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS wopikit_schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var applied = Set<Int>()
        for try await version in try await connection.query("SELECT version FROM wopikit_schema_migrations", logger: logger).decode(Int.self) {
            applied.insert(version)
        }
        if let newest = applied.max(), newest > latestVersion {
            throw StoreSchemaError.newerThanBinary(found: "\(newest)", supported: "\(latestVersion)")
        }
        for migration in migrations where !applied.contains(migration.version) {
            try await connection.inTransaction(logger: logger) { connection in
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO wopikit_schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))
                    """, logger: logger)
            }
            logger.notice("applied database migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
        }
    }
}
