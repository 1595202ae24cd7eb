import Foundation
import WOPIHost
import GRDB
import WOPICore

// Version history, lock administration and readiness. Each write is one immediate
// transaction, so a save, a restore and a lock change on the same file never interleave.
extension SQLiteStore {
    /// Records new content for a file — checking the lock (PutFile rules) in the same transaction — and
    /// keeps the replaced content as a version.
    public func saveContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, savedBy: ResourceID?, saveKinds: SaveKinds?,
                            seenModifiedTime: String?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await pool.write { db in
            guard let file = try Self.file(db, id) else { throw WOPIStoreError.notFound }
            try file.requireSavable(by: lock, seenModifiedTime: seenModifiedTime, now: now)
            return try Self.replace(db, file, key: blob.key, size: blob.size, sha256: blob.sha256, by: savedBy, kinds: saveKinds,
                                    keepVersions: keepVersions, now: now)
        }
    }

    /// A file's versions, newest first: the current content first, then the kept ones.
    /// Throws `WOPIStoreError.notFound` for an unknown file.
    public func versions(of id: ResourceID) async throws -> [FileVersionRecord] {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM files WHERE id = ? AND trash_id IS NULL", arguments: [id.rawValue]) else {
                throw WOPIStoreError.notFound
            }
            let kept = try Row.fetchAll(db, sql: "SELECT * FROM file_versions WHERE file_id = ? ORDER BY version DESC",
                                        arguments: [id.rawValue]).map(Self.version)
            let current = try Self.file(row)
            let by: String? = row["modified_by"]
            let kinds: Int? = row["save_kinds"]
            return [FileVersionRecord(fileID: id, version: current.version, size: current.size, sha256: current.sha256, blobKey: current.blobKey,
                                      modifiedAt: current.modifiedAt, modifiedBy: try by.storedID(column: "files.modified_by"),
                                      saveKinds: kinds.map(SaveKinds.init(rawValue:)))] + kept
        }
    }

    /// Makes a kept version's content current again, as a new version, in one atomic step.
    public func restoreVersion(_ id: ResourceID, version: Int64, restoredBy: ResourceID?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await pool.write { db in
            guard let file = try Self.file(db, id) else { throw WOPIStoreError.notFound }
            if let held = file.activeLock(at: now) {
                throw WOPIStoreError.lockConflict(currentLock: held.value, reason: "the file is locked")
            }
            let source: FileVersionRecord
            if version == file.version {
                source = FileVersionRecord(fileID: id, version: file.version, size: file.size, sha256: file.sha256, blobKey: file.blobKey,
                                           modifiedAt: file.modifiedAt, modifiedBy: nil)
            } else if let kept = try Row.fetchOne(db, sql: "SELECT * FROM file_versions WHERE file_id = ? AND version = ?",
                                                  arguments: [id.rawValue, version]).map(Self.version) {
                source = kept
            } else {
                throw WOPIStoreError.notFound
            }
            return try Self.replace(db, file, key: source.blobKey, size: source.size, sha256: source.sha256, by: restoredBy, kinds: nil,
                                    keepVersions: keepVersions, now: now)
        }
    }

    /// Every file whose lock has not expired at `now`, by expiry (soonest first).
    public func activeLocks(at now: Date) async throws -> [FileRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM files WHERE lock_value IS NOT NULL AND lock_expires_at > ? AND trash_id IS NULL ORDER BY lock_expires_at, id",
                             arguments: [now.timeIntervalSince1970]).map(Self.file)
        }
    }

    /// Removes a file's lock whatever its value (an operator's "break lock"), in one atomic step.
    public func breakLock(_ id: ResourceID, now: Date) async throws -> (removed: LockState?, file: FileRecord) {
        try await pool.write { db in
            guard var file = try Self.file(db, id) else { throw WOPIStoreError.notFound }
            let removed = file.lock.flatMap { $0.isActive(at: now) ? $0 : nil }
            try db.execute(sql: "UPDATE files SET lock_value = NULL, lock_expires_at = NULL WHERE id = ?", arguments: [id.rawValue])
            file.lock = nil
            return (removed, file)
        }
    }

    /// Proves bodies can be read and written now (for `GET /health/ready`); throws an error whose
    /// description names the problem otherwise. Must be cheap and must not leave anything behind.
    public func checkReadiness() async throws {
        try await pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM version_counter") }
    }

    // MARK: Steps

    /// Keeps the current content as a version, installs the new one, prunes old versions and
    /// returns what no row refers to any more. Runs inside the caller's transaction.
    private static func replace(_ db: Database, _ file: FileRecord, key: BlobKey, size: Int64, sha256: String, by: ResourceID?, kinds: SaveKinds?,
                                keepVersions: Int, now: Date) throws -> ContentChange {
        var candidates: Set<String> = []
        if keepVersions > 0 {
            try db.execute(sql: """
                INSERT OR REPLACE INTO file_versions (file_id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds)
                SELECT id, version, size, sha256, blob_key, modified_at, modified_by, save_kinds FROM files WHERE id = ?
                """, arguments: [file.id.rawValue])
        } else {
            candidates.insert(file.blobKey.rawValue)
        }
        var updated = file
        updated.size = size
        updated.sha256 = sha256
        updated.blobKey = key
        updated.modifiedAt = now
        updated.version = try nextVersion(db)
        try db.execute(sql: """
            UPDATE files SET size = ?, sha256 = ?, blob_key = ?, modified_at = ?, version = ?, modified_by = ?, save_kinds = ? WHERE id = ?
            """, arguments: [size, sha256, key.rawValue, now.timeIntervalSince1970, updated.version, by?.rawValue, kinds?.rawValue, file.id.rawValue])
        // Drop the oldest kept versions beyond the limit.
        let dropped = try Row.fetchAll(db, sql: "SELECT version, blob_key FROM file_versions WHERE file_id = ? ORDER BY version DESC LIMIT -1 OFFSET ?",
                                       arguments: [file.id.rawValue, max(keepVersions, 0)])
        for row in dropped {
            try db.execute(sql: "DELETE FROM file_versions WHERE file_id = ? AND version = ?", arguments: [file.id.rawValue, row["version"] as Int64])
            candidates.insert(row["blob_key"])
        }
        // A body may be shared (a restore points the file at a kept body): only unreferenced ones go.
        var orphans: [BlobKey] = []
        for candidate in candidates.sorted() {
            let used = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM files WHERE blob_key = ?) OR EXISTS (SELECT 1 FROM file_versions WHERE blob_key = ?)
                """, arguments: [candidate, candidate]) ?? true
            if !used { orphans.append(try .stored(candidate, column: "blob_key")) }
        }
        return ContentChange(previous: file, file: updated, droppedBlobs: orphans)
    }

    private static func version(_ row: Row) throws -> FileVersionRecord {
        let by: String? = row["modified_by"]
        let kinds: Int? = row["save_kinds"]
        return FileVersionRecord(fileID: try id(row, "file_id"), version: row["version"], size: row["size"], sha256: row["sha256"],
                                 blobKey: try .stored(row["blob_key"], column: "file_versions.blob_key"),
                                 modifiedAt: Date(timeIntervalSince1970: row["modified_at"]), modifiedBy: try by.storedID(column: "file_versions.modified_by"),
                                 saveKinds: kinds.map(SaveKinds.init(rawValue:)))
    }
}
