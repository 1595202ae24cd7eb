import Foundation
import NIOCore

/// A local file read in 256 KiB chunks, as the body a ``BlobStore`` consumes.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let handle: FileHandle

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle
        mutating func next() async throws -> ByteBuffer? {
            guard let data = try handle.read(upToCount: 256 * 1024), !data.isEmpty else { return nil }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: handle) }
}

/// In-memory bytes as a one-chunk body, for small generated documents.
struct DataChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let data: Data

    struct AsyncIterator: AsyncIteratorProtocol {
        var data: Data?
        mutating func next() async throws -> ByteBuffer? {
            defer { data = nil }
            return data.map { ByteBuffer(bytes: $0) }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data) }
}
