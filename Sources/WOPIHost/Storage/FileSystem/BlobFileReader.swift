import NIOCore
import NIOPosix
import SystemPackage

/// A stored body read for a response, chunk after chunk, into two buffers that take turns.
///
/// A fresh buffer per chunk came from memory the kernel had to fault in and zero first: a quarter of
/// GetFile's CPU. While one buffer is being sent, the next chunk is read into the other; by
/// the time a buffer's turn comes again the channel has usually let go of it, so steady state touches
/// no new memory (should it still be held, `ByteBuffer` copies on write and nothing is shared).
///
/// Each read runs on NIO's blocking-I/O thread pool.
///
/// Unchecked `Sendable`: the caller (``BlobFileChunks``) awaits each read before the next, so one thread at a time touches the state.
final class BlobFileReader: @unchecked Sendable {
    /// `nil` once closed.
    private var descriptor: SystemPackage.FileDescriptor?
    private let size: Int64
    private let chunkLength: Int
    private var offset: Int64 = 0
    private var buffers: (ByteBuffer, ByteBuffer)

    private init(descriptor: SystemPackage.FileDescriptor, size: Int64, chunkLength: Int) {
        self.descriptor = descriptor
        self.size = size
        self.chunkLength = chunkLength
        let allocator = ByteBufferAllocator()
        buffers = (allocator.buffer(capacity: chunkLength), allocator.buffer(capacity: chunkLength))
    }

    /// Opens the file at `path` to read its first `size` bytes in chunks of `chunkLength`.
    static func open(_ path: FilePath, size: Int64, chunkLength: Int) async throws -> BlobFileReader {
        let descriptor = try await NIOThreadPool.singleton.runIfActive {
            try SystemPackage.FileDescriptor.open(path, .readOnly, options: .closeOnExec)
        }
        return BlobFileReader(descriptor: descriptor, size: size, chunkLength: chunkLength)
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset >= size }

    /// The next chunk. A file shorter than `size` is an error: the response promised that length.
    func next() async throws -> ByteBuffer {
        try await NIOThreadPool.singleton.runIfActive {
            guard let descriptor = self.descriptor else { throw Errno.badFileDescriptor }
            self.buffers = (self.buffers.1, self.buffers.0)
            self.buffers.0.clear()
            let offset = self.offset
            let length = Int(min(Int64(self.chunkLength), self.size - offset))
            var filled = 0
            while filled < length {
                let count = try self.buffers.0.writeWithUnsafeMutableBytes(minimumWritableBytes: length - filled) { bytes in
                    try descriptor.read(fromAbsoluteOffset: offset + Int64(filled),
                                        into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<(length - filled)]))
                }
                guard count > 0 else { throw BlobStoreError.unavailable("the stored body is shorter than its recorded size") }
                filled += count
            }
            self.offset += Int64(length)
            return self.buffers.0
        }
    }

    /// A reader dropped before its end (the client went away) still closes its file.
    deinit { try? descriptor?.close() }

    /// Closes the file.
    func close() async {
        _ = try? await NIOThreadPool.singleton.runIfActive {
            try? self.descriptor?.close()
            self.descriptor = nil
        }
    }
}

/// The chunks of one stored body for ``BlobContent``: each chunk is read while the one before it is
/// being sent, as a prefetch the next call collects.
final class BlobFileChunks {
    private let path: FilePath
    private let size: Int64
    private let chunkLength: Int
    private var reader: BlobFileReader?
    private var prefetch: Task<ByteBuffer, any Error>?
    private var finished = false

    init(path: FilePath, size: Int64, chunkLength: Int) {
        self.path = path
        self.size = size
        self.chunkLength = chunkLength
    }

    /// The next chunk; `nil` after the last one, when the file is closed.
    func next() async throws -> ByteBuffer? {
        guard !finished else { return nil }
        do {
            let reader = try await openReader()
            let chunk: ByteBuffer
            if let prefetch {
                self.prefetch = nil
                chunk = try await prefetch.value
            } else if reader.isAtEnd {
                finished = true
                await reader.close()
                return nil
            } else {
                chunk = try await reader.next()
            }
            if !reader.isAtEnd { prefetch = Task { try await reader.next() } }
            return chunk
        } catch {
            finished = true
            _ = try? await prefetch?.value
            await reader?.close()
            throw error
        }
    }

    private func openReader() async throws -> BlobFileReader {
        if let reader { return reader }
        let opened = try await BlobFileReader.open(path, size: size, chunkLength: chunkLength)
        reader = opened
        return opened
    }
}
