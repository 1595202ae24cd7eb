import Foundation
import WOPIHost
import PostgresNIO
import WOPICore
import WOPIStoreSQL

/// Version history, lock administration and readiness on PostgreSQL. Each change is one
/// transaction that locks the file's row first, so a save, a restore and a lock change on the same
/// file serialize whichever host runs them.
extension PostgresStore {
    /// Records new content for a file — checking the lock (PutFile rules) in the same transaction — and
    /// keeps the replaced content as a version.
    public func saveContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, savedBy: ResourceID?, saveKinds: SaveKinds?,
                            seenModifiedTime: String?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await transaction { connection in
            guard let file = try await self.lockedFile(connection, id) else { throw WOPIStoreError.notFound }
            try file.requireSavable(by: lock, seenModifiedTime: seenModifiedTime, now: now)
            return try await self.replace(connection, file, key: blob.key, size: blob.size, sha256: blob.sha256, by: savedBy, kinds: saveKinds,
                                          keepVersions: keepVersions, now: now)
        }
    }

    /// A file's versions, newest first: the current content first, then the kept ones.
    /// Throws `WOPIStoreError.notFound` for an unknown file.
    public func versions(of id: ResourceID) async throws -> [FileVersionRecord] {
        try await transaction { connection in
            guard let current = try await Self.first(connection, """
                SELECT id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds FROM files WHERE id = \(id.rawValue) AND trash_id IS NULL
                """, logger: self.logger, Self.version) else { throw WOPIStoreError.notFound }
            let kept = try await Self.all(connection, """
                SELECT file_id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds FROM file_versions
                WHERE file_id = \(id.rawValue) ORDER BY version DESC
                """, logger: self.logger, Self.version)
            return [current] + kept
        }
    }

    /// Makes a kept version's content current again, as a new version, in one atomic step.
    public func restoreVersion(_ id: ResourceID, version: Int64, restoredBy: ResourceID?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await transaction { connection in
            guard let file = try await self.lockedFile(connection, id) else { throw WOPIStoreError.notFound }
            if let held = file.activeLock(at: now) {
                throw WOPIStoreError.lockConflict(currentLock: held.value, reason: "the file is locked")
            }
            let source: FileVersionRecord
            if version == file.version {
                source = FileVersionRecord(fileID: id, version: file.version, size: file.size, sha256: file.sha256, blobKey: file.blobKey,
                                           modifiedAt: file.modifiedAt, modifiedBy: nil)
            } else if let kept = try await Self.first(connection, """
                SELECT file_id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds FROM file_versions
                WHERE file_id = \(id.rawValue) AND version = \(version)
                """, logger: self.logger, Self.version) {
                source = kept
            } else {
                throw WOPIStoreError.notFound
            }
            return try await self.replace(connection, file, key: source.blobKey, size: source.size, sha256: source.sha256, by: restoredBy,
                                          kinds: nil, keepVersions: keepVersions, now: now)
        }
    }

    /// Every file whose lock has not expired at `now`, by expiry (soonest first).
    public func activeLocks(at now: Date) async throws -> [FileRecord] {
        try await all("""
            SELECT \(unescaped: Columns.file) FROM files
            WHERE lock_value IS NOT NULL AND lock_expires_at > \(now.timeIntervalSince1970) AND trash_id IS NULL ORDER BY lock_expires_at, id
            """, Self.file)
    }

    /// Removes a file's lock whatever its value (an operator's "break lock"), in one atomic step.
    public func breakLock(_ id: ResourceID, now: Date) async throws -> (removed: LockState?, file: FileRecord) {
        try await transaction { connection in
            guard var file = try await self.lockedFile(connection, id) else { throw WOPIStoreError.notFound }
            let removed = file.lock.flatMap { $0.isActive(at: now) ? $0 : nil }
            try await connection.query("UPDATE files SET lock_value = NULL, lock_expires_at = NULL WHERE id = \(id.rawValue)", logger: self.logger)
            file.lock = nil
            return (removed, file)
        }
    }

    /// Answers within 800 ms (`readinessLimit`): a balancer's probe must not wait for the pool to notice an outage.
    public func checkReadiness() async throws {
        let outcome = await SupervisedPostgresClient.firstOutcome(within: Self.readinessLimit) {
            _ = try await self.all("SELECT 1 FROM wopikit_schema_migrations LIMIT 1") { try $0.decode(Int.self) }
        }
        switch outcome {
        case .success: return
        case .failure(let error): throw error
        case nil: throw StoreUnavailable("no answer within \(Self.readinessLimit)")
        }
    }

    /// How long ``checkReadiness()`` waits for the database.
    static let readinessLimit = Duration.milliseconds(800)

    // MARK: Steps

    /// Keeps the current content as a version, installs the new one, prunes old versions and returns
    /// the bodies no row refers to any more. Runs inside the caller's transaction, after its row lock.
    private func replace(_ connection: PostgresConnection, _ file: FileRecord, key: BlobKey, size: Int64, sha256: String, by: ResourceID?,
                         kinds: SaveKinds?, keepVersions: Int, now: Date) async throws -> ContentChange {
        var candidates: Set<String> = []
        if keepVersions > 0 {
            try await connection.query("""
                INSERT INTO file_versions (file_id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds)
                SELECT id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds FROM files WHERE id = \(file.id.rawValue)
                ON CONFLICT (file_id, version) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256, blob_key = excluded.blob_key,
                    modified_at = excluded.modified_at, modified_by = excluded.modified_by, save_kinds = excluded.save_kinds
                """, logger: logger)
        } else {
            candidates.insert(file.blobKey.rawValue)
        }
        var updated = file
        updated.size = size
        updated.sha256 = sha256
        updated.blobKey = key
        updated.modifiedAt = now
        updated.version = try await nextVersion(connection)
        try await connection.query("""
            UPDATE files SET size = \(size), sha256 = \(sha256), blob_key = \(key.rawValue), modified_at = \(now.timeIntervalSince1970),
                             version = \(updated.version), modified_by = \(by?.rawValue), save_kinds = \(kinds?.rawValue)
            WHERE id = \(file.id.rawValue)
            """, logger: logger)
        let dropped = try await Self.all(connection, """
            DELETE FROM file_versions WHERE file_id = \(file.id.rawValue) AND version IN (
                SELECT version FROM file_versions WHERE file_id = \(file.id.rawValue) ORDER BY version DESC OFFSET \(max(keepVersions, 0)))
            RETURNING blob_key
            """, logger: logger) { try $0.decode(String.self) }
        candidates.formUnion(dropped)
        // A body may be shared (a restore points the file at a kept body): only unreferenced ones go.
        let orphans = try await unreferenced(candidates, PostgresSession(connection: connection, logger: logger))
        return ContentChange(previous: file, file: updated, droppedBlobs: orphans)
    }

    private static func version(_ row: PostgresRow) throws -> FileVersionRecord {
        let (fileID, version, size, sha256, blobKey, modified, by, kinds) = try row.decode((String, Int64, Int64, String, String, Double, String?, Int32?).self)
        return FileVersionRecord(fileID: try id(fileID), version: version, size: size, sha256: sha256,
                                 blobKey: try .stored(blobKey, column: "file_versions.blob_key"),
                                 modifiedAt: Date(timeIntervalSince1970: modified), modifiedBy: try by.storedID(column: "file_versions.modified_by"),
                                 saveKinds: kinds.map { SaveKinds(rawValue: Int($0)) })
    }
}
