import Foundation
import WOPICore
import WOPIHost

/// Users, folders, files and host settings. A change that reads and then writes runs in one transaction
/// that locks the rows it reads; a name clash is found before the write, and a unique index catches the
/// one a concurrent writer makes after the check.
extension SQLStore {
    // MARK: Users

    /// Creates a user with an empty root container. Throws `WOPIStoreError.nameTaken(_:)` for a duplicate name.
    public func createUser(name: String, displayName: String, passwordHash: PasswordHash) async throws -> UserRecord {
        let user = UserRecord(id: .random(), name: name, displayName: displayName, passwordHash: passwordHash, rootContainerID: .random())
        try await naming(name) { session in
            guard try await session.first("SELECT 1 FROM users WHERE \(dialect.sameName("name", name))") == nil else {
                throw WOPIStoreError.nameTaken(name)
            }
            try await session.execute("""
                INSERT INTO users (id, name, display_name, password_hash, root_container_id)
                VALUES (\(user.id), \(name), \(displayName), \(passwordHash.encoded), \(user.rootContainerID))
                """)
            try await session.execute("""
                INSERT INTO containers (id, parent_id, owner_id, name)
                VALUES (\(user.rootContainerID), NULL, \(user.id), \(WOPIName.sanitized("\(displayName)'s files").rawValue))
                """)
        }
        return user
    }

    /// The user with this id.
    public func user(id: ResourceID) async throws -> UserRecord? {
        try await first("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)").map { try Self.user($0) }
    }

    /// The user with this sign-in name (case-insensitive).
    public func user(named name: String) async throws -> UserRecord? {
        try await first("SELECT \(unescaped: Self.userColumns) FROM users WHERE \(dialect.sameName("name", name))").map { try Self.user($0) }
    }

    /// All users, by name.
    public func users() async throws -> [UserRecord] {
        try await rows("SELECT \(unescaped: Self.userColumns) FROM users ORDER BY \(unescaped: dialect.byName("name"))").map { try Self.user($0) }
    }

    /// Removes a user with all their containers and files; returns the blobs to delete.
    public func removeUser(id: ResourceID) async throws -> [BlobKey] {
        try await transaction { session in
            let blobs = try await session.rows("""
                SELECT blob_key FROM files WHERE owner_id = \(id)
                UNION SELECT v.blob_key FROM file_versions v JOIN files f ON f.id = v.file_id WHERE f.owner_id = \(id)
                """).map { try BlobKey.stored($0.text(0), column: "blob_key") }
            try await session.execute("DELETE FROM files WHERE owner_id = \(id)")
            // Children before parents: the leaves go, again and again, until none is left.
            while try await !session.rows("""
                DELETE FROM containers WHERE owner_id = \(id) AND id NOT IN (SELECT parent_id FROM containers WHERE parent_id IS NOT NULL)
                RETURNING id
                """).isEmpty {}
            guard try await !session.rows("DELETE FROM users WHERE id = \(id) RETURNING id").isEmpty else { throw WOPIStoreError.notFound }
            return blobs
        }
    }

    /// Stores PutUserInfo's value for a user.
    public func setUserInfo(_ info: String, for userID: ResourceID) async throws {
        guard try await !write("UPDATE users SET user_info = \(info) WHERE id = \(userID) RETURNING id").isEmpty else {
            throw WOPIStoreError.notFound
        }
    }

    /// Replaces a user's password hash and, in the same transaction, ends every web session of theirs
    /// (`WebSessionStore`), so a new password signs out every browser. Returns how many sessions ended;
    /// throws `WOPIStoreError.notFound` for an unknown user.
    public func setPasswordHash(_ hash: PasswordHash, for userID: ResourceID) async throws -> Int {
        try await transaction { session in
            guard try await !session.rows("UPDATE users SET password_hash = \(hash.encoded) WHERE id = \(userID) RETURNING id").isEmpty else {
                throw WOPIStoreError.notFound
            }
            return try await session.rows("DELETE FROM web_sessions WHERE user_id = \(userID) RETURNING digest").count
        }
    }

    // MARK: Containers

    /// The container with this id.
    public func container(id: ResourceID) async throws -> ContainerRecord? {
        try await read { session in try await liveContainer(session, id, lock: "") }
    }

    /// Up to `limit` direct child containers of a container, sorted by name as in `children(of:)`,
    /// starting after the child named `after` (case-insensitively) when it is given.
    public func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord] {
        try await read { session in
            try await listing(session, Self.containerColumns, from: "containers", under: "parent_id", id, after: after, limit: limit)
        }.map { try Self.container($0) }
    }

    /// Up to `limit` files of a container, sorted by name as in `children(of:)`, starting after the
    /// file named `after` (case-insensitively) when it is given. Same paging rules as
    /// `childContainers(of:after:limit:)`.
    public func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord] {
        try await read { session in
            try await listing(session, Self.fileColumns, from: "files", under: "container_id", id, after: after, limit: limit)
        }.map { try Self.file($0) }
    }

    /// The rows of `table` under `column` = `id`, by name: after the name `after` and up to `limit` when given.
    private func listing(_ session: Session, _ columns: String, from table: String, under column: String, _ id: ResourceID,
                         after: String? = nil, limit: Int? = nil) async throws -> [SQLRow] {
        let after: SQLStatement = after.map { "AND \(dialect.nameAfter("name", $0))" } ?? ""
        let limit: SQLStatement = limit.map { "LIMIT \($0)" } ?? ""
        return try await session.rows("""
            SELECT \(unescaped: columns) FROM \(unescaped: table) WHERE \(unescaped: column) = \(id) \(after)
            ORDER BY \(unescaped: dialect.byName("name")) \(limit)
            """)
    }

    /// The path from the owner's root down to and including this container.
    public func containerPath(to id: ResourceID) async throws -> [ContainerRecord] {
        // One statement walks up the parents, bounded: a cycle cannot be made through this API; stay safe anyway.
        let path = try await rows("""
            WITH RECURSIVE path(id, parent_id, owner_id, name, depth) AS (
                SELECT id, parent_id, owner_id, name, 0 FROM containers WHERE id = \(id) AND trash_id IS NULL
                UNION ALL
                SELECT c.id, c.parent_id, c.owner_id, c.name, p.depth + 1 FROM containers c JOIN path p ON c.id = p.parent_id WHERE p.depth < 256
            )
            SELECT \(unescaped: Self.containerColumns) FROM path ORDER BY depth DESC
            """).map { try Self.container($0) }
        guard !path.isEmpty else { throw WOPIStoreError.notFound }
        return path
    }

    /// The direct children of a container, each list sorted by name.
    public func children(of id: ResourceID) async throws -> (containers: [ContainerRecord], files: [FileRecord]) {
        try await read { session in
            guard try await session.first("SELECT 1 FROM containers WHERE id = \(id) AND trash_id IS NULL") != nil else {
                throw WOPIStoreError.notFound
            }
            let containers = try await listing(session, Self.containerColumns, from: "containers", under: "parent_id", id).map { try Self.container($0) }
            let files = try await listing(session, Self.fileColumns, from: "files", under: "container_id", id).map { try Self.file($0) }
            return (containers, files)
        }
    }

    /// Creates a child container. Throws `WOPIStoreError.nameTaken(_:)` when a sibling has the name.
    public func createContainer(named name: String, in parentID: ResourceID) async throws -> ContainerRecord {
        try await naming(name) { session in
            guard let parent = try await liveContainer(session, parentID, lock: dialect.forShare) else { throw WOPIStoreError.notFound }
            try await requireFree(session, name, in: "containers", under: "parent_id", parentID)
            let container = ContainerRecord(id: .random(), parentID: parentID, ownerID: parent.ownerID, name: name)
            try await session.execute("""
                INSERT INTO containers (id, parent_id, owner_id, name) VALUES (\(container.id), \(parentID), \(parent.ownerID), \(name))
                """)
            return container
        }
    }

    /// Renames a container. Throws `WOPIStoreError.nameTaken(_:)` when a sibling has the name.
    public func renameContainer(_ id: ResourceID, to name: String) async throws -> ContainerRecord {
        try await naming(name) { session in
            guard var container = try await liveContainer(session, id, lock: dialect.forUpdate()) else { throw WOPIStoreError.notFound }
            if let parent = container.parentID { try await requireFree(session, name, in: "containers", under: "parent_id", parent, except: id) }
            try await session.execute("UPDATE containers SET name = \(name) WHERE id = \(id)")
            container.name = name
            return container
        }
    }

    /// Deletes an empty, non-root container. Throws `WOPIStoreError.notEmpty` otherwise.
    public func deleteContainer(_ id: ResourceID) async throws {
        try await transaction { session in
            guard let container = try await liveContainer(session, id, lock: dialect.forUpdate()) else { throw WOPIStoreError.notFound }
            guard container.parentID != nil, try await !hasChildren(session, id) else { throw WOPIStoreError.notEmpty }
            try await session.execute("DELETE FROM containers WHERE id = \(id)")
        }
    }

    // MARK: Files

    /// The file with this id.
    public func file(id: ResourceID) async throws -> FileRecord? {
        try await first("SELECT \(unescaped: Self.fileColumns) FROM files WHERE id = \(id) AND trash_id IS NULL").map { try Self.file($0) }
    }

    /// The file with this name in a container (case-insensitive).
    public func file(named name: String, in containerID: ResourceID) async throws -> FileRecord? {
        try await first("""
            SELECT \(unescaped: Self.fileColumns) FROM files WHERE container_id = \(containerID) AND \(dialect.sameName("name", name))
            """).map { try Self.file($0) }
    }

    /// Records a new file whose body is already stored.
    public func createFile(named name: String, in containerID: ResourceID, blob: StoredBlob, replacing: Bool, now: Date) async throws
        -> (file: FileRecord, replacedBlob: BlobKey?) {
        try await naming(name) { session in
            guard let container = try await liveContainer(session, containerID, lock: dialect.forShare) else { throw WOPIStoreError.notFound }
            if let existing = try await session.first("""
                SELECT \(unescaped: Self.fileColumns) FROM files WHERE container_id = \(containerID) AND \(dialect.sameName("name", name))\
                \(unescaped: dialect.forUpdate())
                """).map({ try Self.file($0) }) {
                guard replacing else { throw WOPIStoreError.nameTaken(existing.name) }
                try existing.requireModifiable(by: nil, now: now)
                var updated = existing
                (updated.size, updated.sha256, updated.blobKey, updated.modifiedAt) = (blob.size, blob.sha256, blob.key, now)
                updated.version = try await nextVersion(session)
                try await session.execute("""
                    UPDATE files SET size = \(blob.size), sha256 = \(blob.sha256), blob_key = \(blob.key.rawValue), modified_at = \(now),
                                     version = \(updated.version), modified_by = NULL
                    WHERE id = \(existing.id)
                    """)
                // A restored file shares its body with a kept version: that body stays.
                return (updated, try await unreferenced([existing.blobKey.rawValue], session).first)
            }
            let file = FileRecord(id: .random(), containerID: containerID, ownerID: container.ownerID, name: name, size: blob.size,
                                  version: try await nextVersion(session), sha256: blob.sha256, blobKey: blob.key, modifiedAt: now, lock: nil)
            try await session.execute("""
                INSERT INTO files (id, container_id, owner_id, name, size, version, sha256, blob_key, modified_at)
                VALUES (\(file.id), \(containerID), \(container.ownerID), \(name), \(file.size), \(file.version), \(file.sha256),
                        \(file.blobKey.rawValue), \(now))
                """)
            return (file, nil)
        }
    }

    /// Renames a file (the lock rules of `LockRules.Request.modify(_:)` apply); bumps its version.
    public func renameFile(_ id: ResourceID, to name: String, lock: WOPILock?, now: Date) async throws -> FileRecord {
        try await naming(name) { session in
            guard var file = try await lockedFile(session, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            try await requireFree(session, name, in: "files", under: "container_id", file.containerID, except: id)
            file.name = name
            file.version = try await nextVersion(session)
            try await session.execute("UPDATE files SET name = \(name), version = \(file.version) WHERE id = \(id)")
            return file
        }
    }

    /// Deletes a file unless someone else holds its lock; returns its blob to delete.
    public func deleteFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> BlobKey {
        try await transaction { session in
            guard let file = try await lockedFile(session, id) else { throw WOPIStoreError.notFound }
            try file.requireModifiable(by: lock, now: now)
            try await session.execute("DELETE FROM files WHERE id = \(id)")
            return file.blobKey
        }
    }

    /// Every blob key a file or a kept version (`versions(of:)`) refers to, for garbage collection of orphans.
    public func referencedBlobs() async throws -> Set<BlobKey> {
        Set(try await rows("SELECT blob_key FROM files UNION SELECT blob_key FROM file_versions").map { try .stored($0.text(0), column: "blob_key") })
    }

    /// The bodies of ``referencedBlobs()``, each once, with their recorded size and SHA-256, in key order.
    public func referencedBodies() async throws -> [StoredBlob] {
        let found = try await rows("SELECT blob_key, size, sha256 FROM files UNION SELECT blob_key, size, sha256 FROM file_versions ORDER BY 1")
        var bodies: [StoredBlob] = []
        var seen: Set<BlobKey> = []
        for row in found {
            let body = StoredBlob(key: try .stored(row.text(0), column: "blob_key"), size: try row.integer(1), sha256: try row.text(2))
            if seen.insert(body.key).inserted { bodies.append(body) }
        }
        return bodies
    }

    // MARK: Settings

    /// A host-wide secret, created with `make` the first time it is asked for and shared by every
    /// process and machine using this store.
    public func hostSecret(named name: String, orCreate make: @Sendable () -> Data) async throws -> Data {
        if let existing = try await first("SELECT value FROM settings WHERE name = \(name)") { return Data(try existing.blob(0)) }
        // Two hosts starting at once: the first insert wins and both read its value.
        return try await transaction { session in
            try await session.execute("INSERT INTO settings (name, value) VALUES (\(name), \(make())) ON CONFLICT (name) DO NOTHING")
            guard let stored = try await session.first("SELECT value FROM settings WHERE name = \(name)") else { throw WOPIStoreError.notFound }
            return Data(try stored.blob(0))
        }
    }

    /// A host setting others may read, such as the public URL `wopi serve` last ran under.
    public func hostSetting(named name: String) async throws -> String? {
        try await first("SELECT value FROM settings WHERE name = \(name)").map { String(decoding: try $0.blob(0), as: UTF8.self) }
    }

    /// Stores a host setting.
    public func setHostSetting(_ value: String, named name: String) async throws {
        try await write("INSERT INTO settings (name, value) VALUES (\(name), \(Data(value.utf8))) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
    }

    // MARK: Steps

    /// A transaction that writes `name`, with a unique index's refusal reported as the name taken.
    private func naming<Result: Sendable>(_ name: String, _ body: (Session) async throws -> Result) async throws -> Result {
        do {
            return try await transaction(body)
        } catch where isUniqueViolation(error) {
            throw WOPIStoreError.nameTaken(name) // a concurrent writer took the name since the check
        }
    }
}
