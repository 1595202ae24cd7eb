import Crypto
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded ``BlobStore``: one file per body under `<data>/blobs`, fanned out by key prefix.
///
/// A write goes to `<data>/tmp`, is synced, renamed into `blobs/` (the same file system, so the
/// rename is atomic) and the directory is synced: only then does the caller record the new key.
/// Reads stream in 256 KiB chunks, so memory does not grow with file size.
public struct FileSystemBlobStore: BlobStore {
    /// The folder holding `blobs/` and `tmp/`.
    public let root: URL
    private let chunkLength = 256 * 1024
    private let writeBatchLength = 1024 * 1024

    /// Uses (and creates if needed) `blobs/` and `tmp/` under `root`.
    public init(root: URL) throws {
        self.root = root
        for folder in ["blobs", "tmp"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
    }

    public func write<Body: AsyncSequence & Sendable>(_ body: Body, maximumSize: Int64) async throws -> StoredBlob
        where Body.Element == ByteBuffer {
        let key = BlobKey.random()
        let staging = FilePath(root.appendingPathComponent("tmp/\(key.rawValue).part").path)
        var hasher = SHA256()
        var size: Int64 = 0
        let writeBatchLength = writeBatchLength
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: staging, options: .newFile(replaceExisting: false)) { handle in
                // Network chunks are small; batching them into ~1 MiB writes saves a thread-pool hop per chunk
                // while keeping memory bounded by the batch size, not the file size.
                var batch = ByteBuffer()
                var written: Int64 = 0
                for try await chunk in body {
                    size += Int64(chunk.readableBytes)
                    guard size <= maximumSize else { throw BlobStoreError.tooLarge(maximumSize: maximumSize) }
                    chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                    var chunk = chunk
                    batch.writeBuffer(&chunk)
                    if batch.readableBytes >= writeBatchLength {
                        written += try await handle.write(contentsOf: batch.readableBytesView, toAbsoluteOffset: written)
                        batch.clear()
                    }
                }
                if batch.readableBytes > 0 {
                    written += try await handle.write(contentsOf: batch.readableBytesView, toAbsoluteOffset: written)
                }
                try await handle.synchronize()
            }
            let destination = blobPath(key)
            try await Self.ensureDirectory(destination.removingLastComponent())
            try await FileSystem.shared.moveItem(at: staging, to: destination)
            try await Self.synchronizeDirectory(destination.removingLastComponent())
        } catch {
            _ = try? await FileSystem.shared.removeItem(at: staging)
            throw error
        }
        return StoredBlob(key: key, size: size, sha256: Data(hasher.finalize()).base64EncodedString())
    }

    public func read(_ key: BlobKey, size: Int64) async throws -> ResponseBody {
        let path = blobPath(key)
        guard try await FileSystem.shared.info(forFileAt: path) != nil else { throw BlobStoreError.notFound(key) }
        let chunkLength = chunkLength
        return ResponseBody(contentLength: Int(size)) { writer in
            try await FileSystem.shared.withFileHandle(forReadingAt: path) { handle in
                for try await chunk in handle.readChunks(in: 0..<size, chunkLength: .bytes(Int64(chunkLength))) {
                    try await writer.write(chunk)
                }
            }
            try await writer.finish(nil)
        }
    }

    public func delete(_ key: BlobKey) async throws {
        _ = try await FileSystem.shared.removeItem(at: blobPath(key))
    }

    /// Both folders must exist and be writable: a vanished or read-only volume fails every upload.
    public func checkReadiness() async throws {
        for folder in ["blobs", "tmp"] {
            let path = root.appendingPathComponent(folder).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw BlobStoreError.unavailable("the blob folder \(path) is missing")
            }
            guard access(path, W_OK) == 0 else { throw BlobStoreError.unavailable("the blob folder \(path) is not writable") }
        }
    }

    /// Removes staging files left by a crash, and blobs no file refers to that are older than `grace`
    /// (younger ones may belong to a write that is about to be recorded by another process).
    public func collectGarbage(referenced: Set<BlobKey>, grace: TimeInterval = 3600) throws -> Int {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-grace)
        var removed = 0
        let isOld = { (url: URL) in
            ((try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantFuture) < cutoff
        }
        for url in (try? manager.contentsOfDirectory(at: root.appendingPathComponent("tmp"), includingPropertiesForKeys: nil)) ?? []
        where isOld(url) {
            try manager.removeItem(at: url)
            removed += 1
        }
        let blobs = root.appendingPathComponent("blobs")
        for folder in (try? manager.contentsOfDirectory(at: blobs, includingPropertiesForKeys: nil)) ?? [] {
            for url in (try? manager.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
            where BlobKey(url.lastPathComponent).map({ !referenced.contains($0) }) ?? false && isOld(url) {
                try manager.removeItem(at: url)
                removed += 1
            }
        }
        return removed
    }

    private func blobPath(_ key: BlobKey) -> FilePath {
        FilePath(root.appendingPathComponent("blobs/\(key.rawValue.prefix(2))/\(key.rawValue)").path)
    }

    /// Creates a fan-out folder; another upload creating the same folder at the same moment is fine.
    private static func ensureDirectory(_ path: FilePath) async throws {
        do {
            try await FileSystem.shared.createDirectory(at: path, withIntermediateDirectories: true)
        } catch {
            guard try await FileSystem.shared.info(forFileAt: path)?.type == .directory else { throw error }
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
