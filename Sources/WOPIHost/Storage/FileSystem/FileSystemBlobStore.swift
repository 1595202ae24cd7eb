import Crypto
import Foundation
import NIOCore
import NIOPosix
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded ``BlobStore``: one file per body in a folder, fanned out by key prefix
/// (`<folder>/ab/abcd…`). Several hosts may share the folder (a network mount).
///
/// A write goes to `<folder>/.staging` — inside the same folder tree, so on the same file system —
/// is synced, renamed into its fan-out folder (atomic) and the folder is synced: only then does the
/// caller record the new key. The SHA-256 is computed on the thread pool with each batch's write, while
/// the next batch arrives from the network. Reads stream in 1 MiB chunks (fewer thread-pool hops and syscalls
/// than smaller ones), so memory does not grow with file size.
public struct FileSystemBlobStore: KeyedBlobStore {
    /// The folder holding the bodies.
    public let folder: URL
    /// Where uploads in flight are written before they are renamed into place.
    public var stagingFolder: URL { folder.appendingPathComponent(".staging") }
    private let chunkLength = 1024 * 1024
    /// Network chunks are small (tens of KiB); writing 2 MiB at a time costs one thread-pool hop and one
    /// `pwrite` per batch instead of per chunk.
    private let writeBatchLength = 2 * 1024 * 1024

    /// Uses (and creates if needed) `folder` and its staging folder.
    public init(folder: URL) throws {
        self.folder = folder.standardizedFileURL
        try FileManager.default.createDirectory(at: stagingFolder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    public func write<Body: AsyncSequence & Sendable>(_ body: Body, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer {
        try await write(body, as: BlobKey.random(), maximumSize: maximumSize, replacing: false)
    }

    /// Stores a body under `key`, replacing a body of that key atomically; as ``write(_:maximumSize:)`` otherwise.
    public func write<Body: AsyncSequence & Sendable>(_ body: Body, as key: BlobKey, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer {
        try await write(body, as: key, maximumSize: maximumSize, replacing: true)
    }

    /// A fresh key's body is moved into place only where nothing is (a clash would be a bug, never overwritten);
    /// a given key's replaces what is there in one `rename`.
    private func write<Body: AsyncSequence & Sendable>(_ body: Body, as key: BlobKey, maximumSize: Int64, replacing: Bool) async throws -> StoredBlob
        where Body.Element == ByteBuffer {
        // A staging name of its own, never the key's: a copy of the same key cut off earlier may have left its staging file.
        let staging = FilePath(stagingFolder.appendingPathComponent("\(BlobKey.random().rawValue).part").path)
        let file = try await StagingFile.create(at: staging)
        // Two batches at most: one filling from the network here while the thread pool hashes and
        // writes the other. Memory stays bounded by the batch size, not the file size.
        var pending: Task<ByteBuffer, any Error>?
        do {
            var batch = ByteBuffer()
            batch.reserveCapacity(writeBatchLength)
            var size: Int64 = 0
            for try await chunk in body {
                size += Int64(chunk.readableBytes)
                guard size <= maximumSize else { throw BlobStoreError.tooLarge(maximumSize: maximumSize) }
                // Hand the batch over before it would outgrow its capacity (a regrown buffer doubles).
                if batch.readableBytes > 0, batch.readableBytes + chunk.readableBytes > writeBatchLength {
                    // The previous batch's buffer comes back written and is reused, so steady state allocates nothing.
                    var spare = try await pending?.value ?? ByteBuffer()
                    spare.clear()
                    spare.reserveCapacity(writeBatchLength)
                    pending = Task { [batch] in try await file.append(batch) }
                    batch = spare
                }
                var chunk = chunk
                batch.writeBuffer(&chunk)
            }
            if let previous = pending {
                pending = nil
                _ = try await previous.value
            }
            if batch.readableBytes > 0 { _ = try await file.append(batch) }
            // Durable before it is visible: fsync the body, rename it into place, fsync the folder.
            let sha256 = try await file.synchronizeAndClose()
            let destination = blobPath(key)
            try await Self.ensureDirectory(destination.removingLastComponent())
            if replacing {
                try await Self.rename(staging, to: destination)
            } else {
                try await FileSystem.shared.moveItem(at: staging, to: destination)
            }
            try await Self.synchronizeDirectory(destination.removingLastComponent())
            return StoredBlob(key: key, size: size, sha256: sha256.base64EncodedString())
        } catch {
            // A write still in flight must finish before the file is closed and removed.
            _ = try? await pending?.value
            await file.close()
            _ = try? await FileSystem.shared.removeItem(at: staging)
            throw error
        }
    }

    public func read(_ key: BlobKey, size: Int64) async throws -> BlobContent {
        let path = blobPath(key)
        guard try await FileSystem.shared.info(forFileAt: path) != nil else { throw BlobStoreError.notFound(key) }
        let chunkLength = chunkLength
        return BlobContent(size: size) {
            let chunks = BlobFileChunks(path: path, size: size, chunkLength: chunkLength)
            return { try await chunks.next() }
        }
    }

    public func delete(_ key: BlobKey) async throws {
        _ = try await FileSystem.shared.removeItem(at: blobPath(key))
    }

    /// Both the body folder and its staging folder must exist and be writable: a vanished or read-only
    /// volume fails every upload.
    public func checkReadiness() async throws {
        for url in [folder, stagingFolder] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw BlobStoreError.unavailable("the blob folder \(url.path) is missing")
            }
            guard access(url.path, W_OK) == 0 else { throw BlobStoreError.unavailable("the blob folder \(url.path) is not writable") }
        }
    }

    /// The folder's path.
    public var location: String { folder.path }

    /// Removes staging files left by a crash, and bodies no file refers to, when older than `grace`
    /// (by modification time).
    public func collectGarbage(referenced: Set<BlobKey>, grace: TimeInterval) async throws -> Int {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-grace)
        var removed = 0
        let isOld = { (url: URL) in
            ((try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantFuture) < cutoff
        }
        for url in (try? manager.contentsOfDirectory(at: stagingFolder, includingPropertiesForKeys: nil)) ?? [] where isOld(url) {
            try manager.removeItem(at: url)
            removed += 1
        }
        let fanOut = (try? manager.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil, options: .skipsHiddenFiles)) ?? []
        for subfolder in fanOut {
            for url in (try? manager.contentsOfDirectory(at: subfolder, includingPropertiesForKeys: nil)) ?? []
            where BlobKey(url.lastPathComponent).map({ !referenced.contains($0) }) ?? false && isOld(url) {
                try manager.removeItem(at: url)
                removed += 1
            }
        }
        return removed
    }

    private func blobPath(_ key: BlobKey) -> FilePath {
        FilePath(folder.appendingPathComponent("\(key.rawValue.prefix(2))/\(key.rawValue)").path)
    }

    /// Creates a fan-out folder; another upload creating the same folder at the same moment is fine.
    private static func ensureDirectory(_ path: FilePath) async throws {
        do {
            // Owner only, as every folder of the store, whatever the umask.
            try await FileSystem.shared.createDirectory(at: path, withIntermediateDirectories: true, permissions: .ownerReadWriteExecute)
        } catch {
            guard try await FileSystem.shared.info(forFileAt: path)?.type == .directory else { throw error }
        }
    }

    /// Moves `source` to `destination`, replacing what is there atomically (`rename(2)`).
    private static func rename(_ source: FilePath, to destination: FilePath) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            guard Foundation.rename(source.string, destination.string) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.string,
                                                              NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
            }
        }
    }

    /// Makes a rename durable: POSIX only promises it once the directory itself is synced.
    private static func synchronizeDirectory(_ path: FilePath) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            let descriptor = open(path.string, O_RDONLY)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            _ = fsync(descriptor)
        }
    }
}
