import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WOPIHost

extension HostStorage {
    /// The embedded default: SQLite at `<data>/wopi.sqlite`, bodies in the folder `blobs` (default `<data>/blobs`).
    public static func embedded(data: URL, blobs: URL? = nil) throws -> HostStorage {
        let data = data.standardizedFileURL
        return try embedded(data: data, blobStore: try FileSystemBlobStore(folder: blobs ?? data.appendingPathComponent("blobs")))
    }

    /// SQLite at `<data>/wopi.sqlite`, bodies in `blobStore`.
    public static func embedded(data: URL, blobStore: any BlobStore) throws -> HostStorage {
        let data = data.standardizedFileURL
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = data.appendingPathComponent("wopi.sqlite").path
        try createDatabaseFilePrivately(path)
        return HostStorage(store: try SQLiteStore(path: path), blobs: blobStore)
    }
}

/// Creates an empty database file with mode 0600 unless one exists. SQLite would create it 0644 less the
/// umask, and gives its journal and WAL files the database file's mode: this keeps all of them private
/// whatever the process's umask (a container applies none of a service unit's).
private func createDatabaseFilePrivately(_ path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if descriptor >= 0 {
        close(descriptor)
    } else if errno != EEXIST {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
    }
}
