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
        // The built-in OAuth 2.0 authorization server. Secrets are stored as SHA-256 hex digests only;
        // a removed user's codes and tokens go with them.
        migrator.registerMigration("v2-authorization") { db in
            try db.execute(sql: """
                CREATE TABLE oauth_codes (
                    digest TEXT PRIMARY KEY,
                    client_id TEXT NOT NULL,
                    redirect_uri TEXT NOT NULL,
                    redirect_uri_required INTEGER NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL,
                    code_challenge TEXT,
                    session_context TEXT,
                    grant_id TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    redeemed_at REAL
                );
                CREATE INDEX oauth_codes_expiry ON oauth_codes(expires_at);
                CREATE INDEX oauth_codes_user ON oauth_codes(user_id);
                CREATE TABLE oauth_tokens (
                    digest TEXT PRIMARY KEY,
                    kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
                    grant_id TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL,
                    session_context TEXT,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    revoked_at REAL
                );
                CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
                CREATE INDEX oauth_tokens_expiry ON oauth_tokens(expires_at);
                CREATE INDEX oauth_tokens_user ON oauth_tokens(user_id);
                """)
        }
        // Version history and who saved what: a kept body per replaced content, removed with its file.
        migrator.registerMigration("v3-version-history") { db in
            try db.execute(sql: """
                ALTER TABLE files ADD COLUMN modified_by TEXT;
                CREATE TABLE file_versions (
                    file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                    version INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    blob_key TEXT NOT NULL,
                    modified_at REAL NOT NULL,
                    modified_by TEXT,
                    PRIMARY KEY (file_id, version)
                );
                CREATE INDEX file_versions_blob ON file_versions(blob_key);
                CREATE INDEX files_lock_expiry ON files(lock_expires_at) WHERE lock_value IS NOT NULL;
                """)
        }
        // AddActivities: one row per activity and file, the activity itself as JSON, and the users
        // it mentions; all go with their file, author or mentioned user.
        migrator.registerMigration("v4-activities") { db in
            try db.execute(sql: """
                CREATE TABLE activities (
                    file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                    activity_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    actor_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    received_at REAL NOT NULL,
                    activity_json TEXT NOT NULL,
                    PRIMARY KEY (file_id, activity_id)
                );
                CREATE INDEX activities_actor ON activities(actor_id);
                CREATE TABLE activity_mentions (
                    file_id TEXT NOT NULL,
                    activity_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    PRIMARY KEY (file_id, activity_id, user_id),
                    FOREIGN KEY (file_id, activity_id) REFERENCES activities(file_id, activity_id) ON DELETE CASCADE
                );
                CREATE INDEX activity_mentions_user ON activity_mentions(user_id);
                """)
        }
        // Sharing: an item shared with a user as viewer or editor. Exactly one of file_id and
        // container_id is set; a share goes with its item and with its user.
        migrator.registerMigration("v5-shares") { db in
            try db.execute(sql: """
                CREATE TABLE shares (
                    file_id TEXT REFERENCES files(id) ON DELETE CASCADE,
                    container_id TEXT REFERENCES containers(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('viewer', 'editor')),
                    shared_at REAL NOT NULL,
                    CHECK ((file_id IS NULL) <> (container_id IS NULL))
                );
                CREATE UNIQUE INDEX shares_file_user ON shares(file_id, user_id) WHERE file_id IS NOT NULL;
                CREATE UNIQUE INDEX shares_container_user ON shares(container_id, user_id) WHERE container_id IS NOT NULL;
                CREATE INDEX shares_user ON shares(user_id);
                CREATE INDEX containers_parent ON containers(parent_id);
                """)
        }
        // The fleet's audit trail, listed by time then sequence (each filter has an index in that order), and
        // failed sign-ins counted for every host: one row per failure, keyed by a digest, never a name.
        migrator.registerMigration("v6-audit-and-signin-failures") { db in
            try db.execute(sql: """
                CREATE TABLE audit_events (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    recorded_at REAL NOT NULL,
                    event TEXT NOT NULL,
                    user_name TEXT,
                    file_id TEXT,
                    request_id TEXT,
                    details TEXT NOT NULL
                );
                CREATE INDEX audit_events_time ON audit_events(recorded_at, sequence);
                CREATE INDEX audit_events_user ON audit_events(user_name COLLATE NOCASE, recorded_at, sequence);
                CREATE INDEX audit_events_file ON audit_events(file_id, recorded_at, sequence);
                CREATE INDEX audit_events_event ON audit_events(event, recorded_at, sequence);
                CREATE TABLE signin_failures (
                    key TEXT NOT NULL,
                    failed_at REAL NOT NULL
                );
                CREATE INDEX signin_failures_key ON signin_failures(key, failed_at);
                CREATE INDEX signin_failures_time ON signin_failures(failed_at);
                """)
        }
        // The trash: a trashed item moves into a hidden holder container of its own (so its name is free at
        // once), and it, the holder and everything under it carry the item's id in trash_id, which every
        // lookup of a live item excludes. Bodies stay until the trash is emptied.
        migrator.registerMigration("v7-trash") { db in
            try db.execute(sql: """
                ALTER TABLE files ADD COLUMN trash_id TEXT;
                ALTER TABLE containers ADD COLUMN trash_id TEXT;
                CREATE INDEX files_trash ON files(trash_id) WHERE trash_id IS NOT NULL;
                CREATE INDEX containers_trash ON containers(trash_id) WHERE trash_id IS NOT NULL;
                CREATE TABLE trash_items (
                    item_id TEXT PRIMARY KEY,
                    kind TEXT NOT NULL CHECK (kind IN ('file', 'container')),
                    owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    holder_id TEXT NOT NULL,
                    original_parent_id TEXT NOT NULL,
                    trashed_at REAL NOT NULL
                );
                CREATE INDEX trash_items_owner ON trash_items(owner_id, trashed_at);
                CREATE INDEX trash_items_time ON trash_items(trashed_at);
                """)
        }
        // The web front's sessions: the SHA-256 digest of each cookie's secret, never the secret; a
        // session goes with its user.
        migrator.registerMigration("v8-web-sessions") { db in
            try db.execute(sql: """
                CREATE TABLE web_sessions (
                    digest TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at REAL NOT NULL,
                    last_seen_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    user_agent TEXT
                );
                CREATE INDEX web_sessions_user ON web_sessions(user_id, created_at);
                CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);
                """)
        }
        // What kind of save made each content (Collabora Online's PutFile headers): bits of `SaveKinds`, NULL when unstated.
        migrator.registerMigration("v9-save-kinds") { db in
            try db.execute(sql: """
                ALTER TABLE files ADD COLUMN save_kinds INTEGER;
                ALTER TABLE file_versions ADD COLUMN save_kinds INTEGER;
                """)
        }
        // Which template each new document was made from (TemplateOriginStore); the record goes with
        // either file.
        migrator.registerMigration("v10-template-origins") { db in
            try db.execute(sql: """
                CREATE TABLE template_origins (
                    file_id TEXT PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                    template_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE
                );
                CREATE INDEX template_origins_template ON template_origins(template_id);
                """)
        }
        // Accounts linked to people at an OpenID Connect provider, by (issuer, sub); a link goes with its
        // account. Sign-ins sent to the provider and not yet back, by the digest of their state.
        migrator.registerMigration("v11-identity-links") { db in
            try db.execute(sql: """
                CREATE TABLE identity_links (
                    issuer TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    linked_at REAL NOT NULL,
                    PRIMARY KEY (issuer, subject)
                );
                CREATE UNIQUE INDEX identity_links_user ON identity_links(user_id, issuer);
                CREATE TABLE openid_sign_ins (
                    state_digest TEXT PRIMARY KEY,
                    browser_digest TEXT NOT NULL,
                    continuation TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX openid_sign_ins_expiry ON openid_sign_ins(expires_at);
                """)
        }
        return migrator
    }
}
