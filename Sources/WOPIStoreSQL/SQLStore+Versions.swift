import Foundation
import WOPICore
import WOPIHost

/// Version history and lock administration. Each change is one transaction that locks the file's row
/// first, so a save, a restore and a lock change on the same file serialize whichever host runs them.
extension SQLStore {
    /// Records new content for a file — checking the lock (PutFile rules) in the same transaction — and
    /// keeps the replaced content as a version.
    public func saveContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, savedBy: ResourceID?, saveKinds: SaveKinds?,
                            seenModifiedTime: String?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await transaction { session in
            guard let file = try await lockedFile(session, id) else { throw WOPIStoreError.notFound }
            try file.requireSavable(by: lock, seenModifiedTime: seenModifiedTime, now: now)
            return try await replace(session, file, key: blob.key, size: blob.size, sha256: blob.sha256, by: savedBy, kinds: saveKinds,
                                     keepVersions: keepVersions, now: now)
        }
    }

    /// A file's versions, newest first: the current content first, then the kept ones.
    /// Throws `WOPIStoreError.notFound` for an unknown file.
    public func versions(of id: ResourceID) async throws -> [FileVersionRecord] {
        try await read { session in
            guard let current = try await session.first("""
                SELECT id, \(unescaped: Self.versionColumns) FROM files WHERE id = \(id) AND trash_id IS NULL
                """).map(Self.version) else { throw WOPIStoreError.notFound }
            return [current] + (try await session.rows("""
                SELECT file_id, \(unescaped: Self.versionColumns) FROM file_versions WHERE file_id = \(id) ORDER BY version DESC
                """).map(Self.version))
        }
    }

    /// Makes a kept version's content current again, as a new version, in one atomic step.
    public func restoreVersion(_ id: ResourceID, version: Int64, restoredBy: ResourceID?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await transaction { session in
            guard let file = try await lockedFile(session, id) else { throw WOPIStoreError.notFound }
            if let held = file.activeLock(at: now) {
                throw WOPIStoreError.lockConflict(currentLock: held.value, reason: "the file is locked")
            }
            let source: FileVersionRecord
            if version == file.version {
                source = FileVersionRecord(fileID: id, version: file.version, size: file.size, sha256: file.sha256, blobKey: file.blobKey,
                                           modifiedAt: file.modifiedAt, modifiedBy: nil)
            } else if let kept = try await session.first("""
                SELECT file_id, \(unescaped: Self.versionColumns) FROM file_versions WHERE file_id = \(id) AND version = \(version)
                """).map(Self.version) {
                source = kept
            } else {
                throw WOPIStoreError.notFound
            }
            return try await replace(session, file, key: source.blobKey, size: source.size, sha256: source.sha256, by: restoredBy, kinds: nil,
                                     keepVersions: keepVersions, now: now)
        }
    }

    /// Every file whose lock has not expired at `now`, by expiry (soonest first).
    public func activeLocks(at now: Date) async throws -> [FileRecord] {
        try await rows("""
            SELECT \(unescaped: Self.fileColumns) FROM files
            WHERE lock_value IS NOT NULL AND lock_expires_at > \(now) AND trash_id IS NULL ORDER BY lock_expires_at, id
            """).map { try Self.file($0) }
    }

    /// Removes a file's lock whatever its value (an operator's "break lock"), in one atomic step.
    public func breakLock(_ id: ResourceID, now: Date) async throws -> (removed: LockState?, file: FileRecord) {
        try await transaction { session in
            guard var file = try await lockedFile(session, id) else { throw WOPIStoreError.notFound }
            let removed = file.lock.flatMap { $0.isActive(at: now) ? $0 : nil }
            try await session.execute("UPDATE files SET lock_value = NULL, lock_expires_at = NULL WHERE id = \(id)")
            file.lock = nil
            return (removed, file)
        }
    }

    /// The next number of the store-wide version sequence, which every content change and rename takes.
    public func nextVersion(_ session: Session) async throws -> Int64 {
        guard let number = try await session.first(dialect.nextVersion)?.integer(0) else {
            throw StoredValueError(column: "version sequence", value: "no row")
        }
        return number
    }

    /// Keeps the current content as a version, installs the new one, prunes old versions and returns
    /// the bodies no row refers to any more. Runs inside the caller's transaction, after its row lock.
    private func replace(_ session: Session, _ file: FileRecord, key: BlobKey, size: Int64, sha256: String, by: ResourceID?,
                         kinds: SaveKinds?, keepVersions: Int, now: Date) async throws -> ContentChange {
        var candidates: Set<String> = []
        if keepVersions > 0 {
            try await session.execute("""
                INSERT INTO file_versions (file_id, \(unescaped: Self.versionColumns))
                SELECT id, \(unescaped: Self.versionColumns) FROM files WHERE id = \(file.id)
                ON CONFLICT (file_id, version) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256, blob_key = excluded.blob_key,
                    modified_at = excluded.modified_at, modified_by = excluded.modified_by, save_kinds = excluded.save_kinds
                """)
        } else {
            candidates.insert(file.blobKey.rawValue)
        }
        var updated = file
        updated.size = size
        updated.sha256 = sha256
        updated.blobKey = key
        updated.modifiedAt = now
        updated.version = try await nextVersion(session)
        try await session.execute("""
            UPDATE files SET size = \(size), sha256 = \(sha256), blob_key = \(key.rawValue), modified_at = \(now), version = \(updated.version),
                             modified_by = \(by), save_kinds = \(kinds?.rawValue)
            WHERE id = \(file.id)
            """)
        // The oldest kept versions beyond the limit go.
        candidates.formUnion(try await session.rows("""
            DELETE FROM file_versions WHERE file_id = \(file.id) AND version NOT IN (
                SELECT version FROM file_versions WHERE file_id = \(file.id) ORDER BY version DESC LIMIT \(max(keepVersions, 0)))
            RETURNING blob_key
            """).map { try $0.text(0) })
        // A body may be shared (a restore points the file at a kept body): only unreferenced ones go.
        return ContentChange(previous: file, file: updated, droppedBlobs: try await unreferenced(candidates, session))
    }

    private static var versionColumns: String { "version, size, sha256, blob_key, modified_at, modified_by, save_kinds" }

    /// A version from a row of its file's id and ``versionColumns``.
    private static func version(_ row: SQLRow) throws -> FileVersionRecord {
        FileVersionRecord(fileID: try row.id(0, column: "file_versions.file_id"), version: try row.integer(1), size: try row.integer(2),
                          sha256: try row.text(3), blobKey: try .stored(row.text(4), column: "file_versions.blob_key"), modifiedAt: try row.date(5),
                          modifiedBy: try row.optionalID(6, column: "file_versions.modified_by"),
                          saveKinds: try row.optionalInteger(7).map { SaveKinds(rawValue: Int($0)) })
    }
}
