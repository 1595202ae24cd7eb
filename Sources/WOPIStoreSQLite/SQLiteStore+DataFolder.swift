import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteStore {
    /// The database of the data folder `data`, `<data>/wopi.sqlite`; the folder and the file are created, owner-only,
    /// when they do not exist. `HostStorage.embedded(data:blobStore:)` opens its metadata so.
    public convenience init(dataFolder data: URL) throws {
        let data = data.standardizedFileURL
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = data.appendingPathComponent("wopi.sqlite").path
        try createDatabaseFilePrivately(path)
        try self.init(path: path)
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
