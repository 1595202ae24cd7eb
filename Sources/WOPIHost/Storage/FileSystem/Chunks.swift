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
package struct DataChunks: AsyncSequence, Sendable {
    package typealias Element = ByteBuffer
    let data: Data

    /// A body of `data`.
    package init(data: Data) { self.data = data }

    package struct AsyncIterator: AsyncIteratorProtocol {
        var data: Data?
        package mutating func next() async throws -> ByteBuffer? {
            defer { data = nil }
            return data.map { ByteBuffer(bytes: $0) }
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data) }
}
