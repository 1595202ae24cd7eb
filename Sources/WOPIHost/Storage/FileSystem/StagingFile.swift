import Crypto
import Foundation
import NIOCore
import NIOPosix
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An upload being written to the staging folder: a file descriptor and the running SHA-256 of
/// what has been written to it.
///
/// Each step runs on NIO's blocking-I/O thread pool and hashes the batch it writes, so hashing and
/// writing overlap with the next batch arriving from the network.
///
/// Unchecked `Sendable`: the caller (``FileSystemBlobStore``) awaits each step before the next, so one thread at a time touches the state.
final class StagingFile: @unchecked Sendable {
    /// `nil` once closed.
    private var descriptor: SystemPackage.FileDescriptor?
    private var hasher = SHA256()
    private var offset: Int64 = 0

    private init(descriptor: SystemPackage.FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Creates a new file at `path`, which must not exist (`O_EXCL`), readable by the owner only.
    static func create(at path: FilePath) async throws -> StagingFile {
        let descriptor = try await NIOThreadPool.singleton.runIfActive {
            try SystemPackage.FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: .ownerReadWrite)
        }
        return StagingFile(descriptor: descriptor)
    }

    /// Hashes and appends a batch; returns the buffer so the caller can reuse its storage.
    func append(_ batch: ByteBuffer) async throws -> ByteBuffer {
        try await NIOThreadPool.singleton.runIfActive {
            guard let descriptor = self.descriptor else { throw Errno.badFileDescriptor }
            try batch.withUnsafeReadableBytes { bytes in
                self.hasher.update(bufferPointer: bytes)
                let start = self.offset
                let written = try descriptor.writeAll(toAbsoluteOffset: start, bytes)
                self.offset = start + Int64(written)
                #if canImport(Glibc)
                self.writeBack(descriptor.rawValue, from: start, to: self.offset)
                #endif
            }
            return batch
        }
    }

    #if canImport(Glibc)
    /// Everything before this offset is on disk and out of the page cache.
    private var settledOffset: Int64 = 0

    /// Starts writing `start..<end` to disk now, then waits for the batches before it to be on disk and
    /// drops their clean pages. The final `fsync` then has about one batch left to write, and an upload
    /// holds at most two batches of dirty page cache. `fsync` still makes the file durable.
    private func writeBack(_ descriptor: CInt, from start: Int64, to end: Int64) {
        guard let syncFileRange = Self.syncFileRange else { return }
        _ = syncFileRange(descriptor, start, end - start, Self.write)
        guard start > settledOffset else { return }
        _ = syncFileRange(descriptor, settledOffset, start - settledOffset, Self.waitBefore | Self.write | Self.waitAfter)
        _ = posix_fadvise(descriptor, off_t(settledOffset), off_t(start - settledOffset), POSIX_FADV_DONTNEED)
        settledOffset = start
    }

    /// SYNC_FILE_RANGE_WAIT_BEFORE, SYNC_FILE_RANGE_WRITE and SYNC_FILE_RANGE_WAIT_AFTER from <fcntl.h>.
    private static let (waitBefore, write, waitAfter): (UInt32, UInt32, UInt32) = (1, 2, 4)
    /// `sync_file_range(2)`: Linux only, and Glibc's Swift module does not declare it.
    private static let syncFileRange: (@convention(c) (CInt, Int64, Int64, UInt32) -> CInt)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (CInt, Int64, Int64, UInt32) -> CInt).self)
    }()
    #endif

    /// Flushes the file to stable storage (`fsync`), closes it and returns the SHA-256 of its content.
    func synchronizeAndClose() async throws -> Data {
        try await NIOThreadPool.singleton.runIfActive {
            defer { self.closeNow() }
            guard let descriptor = self.descriptor?.rawValue else { throw Errno.badFileDescriptor }
            // swift-system has no fsync.
            while fsync(descriptor) != 0 {
                guard errno == EINTR else { throw Errno(rawValue: errno) }
            }
            #if canImport(Glibc)
            // Durable now, so its pages are clean: hand them back rather than let each upload grow the page
            // cache. On this project's VMs, writing into never-used memory cost five times the
            // write itself; reused pages do not. A later GetFile reads the body from disk once.
            _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
            #endif
            return Data(self.hasher.finalize())
        }
    }

    /// Closes the file if it is still open (after a failure).
    func close() async {
        _ = try? await NIOThreadPool.singleton.runIfActive { self.closeNow() }
    }

    private func closeNow() {
        try? descriptor?.close()
        descriptor = nil
    }
}
