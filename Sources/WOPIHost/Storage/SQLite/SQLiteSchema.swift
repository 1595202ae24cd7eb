import GRDB

/// The embedded store's schema, as ordered migrations. Add new migrations at the end; never edit a shipped one.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-wopi") { db in
            try db.execute(sql: """
                CREATE TABLE settings (
                    name TEXT PRIMARY KEY,
                    value BLOB NOT NULL
                );
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    display_name TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    root_container_id TEXT NOT NULL,
                    user_info TEXT
                );
                CREATE TABLE containers (
                    id TEXT PRIMARY KEY,
                    parent_id TEXT REFERENCES containers(id),
                    owner_id TEXT NOT NULL REFERENCES users(id),
                    name TEXT NOT NULL
                );
                -- Roots have a NULL parent; SQLite treats NULLs as distinct, so every user may have one.
                CREATE UNIQUE INDEX containers_sibling_name ON containers(parent_id, name COLLATE NOCASE);
                CREATE TABLE files (
                    id TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL REFERENCES containers(id),
                    owner_id TEXT NOT NULL REFERENCES users(id),
                    name TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    version INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    blob_key TEXT NOT NULL,
                    modified_at REAL NOT NULL,
                    lock_value TEXT,
                    lock_expires_at REAL
                );
                CREATE UNIQUE INDEX files_name ON files(container_id, name COLLATE NOCASE);
                -- Version numbers come from one counter so a version is never handed out twice.
                CREATE TABLE version_counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO version_counter (id, value) VALUES (1, 0);
                """)
        }
        return migrator
    }
}
