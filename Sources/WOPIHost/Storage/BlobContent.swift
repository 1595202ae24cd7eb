import NIOCore

/// A stored body being read: its chunks as an async sequence, and the size they add up to.
///
/// A response can promise ``size`` (`Content-Length`) before the first byte is read. Iterating checks
/// that promise: a store whose chunks add up to more or fewer bytes fails the iteration instead of
/// sending a body of another length.
public struct BlobContent: AsyncSequence, Sendable {
    /// One chunk of the body.
    public typealias Element = ByteBuffer

    /// The body's size in bytes, as recorded when it was written.
    public let size: Int64
    private let makeNext: @Sendable () -> () async throws -> ByteBuffer?

    /// A body of `size` bytes whose chunks each iteration pulls from a fresh `next` function;
    /// `next` returns `nil` at the end.
    public init(size: Int64, next makeNext: @escaping @Sendable () -> () async throws -> ByteBuffer?) {
        self.size = size
        self.makeNext = makeNext
    }

    /// A body of `size` bytes read from `chunks`.
    public init<Chunks: AsyncSequence & Sendable>(size: Int64, chunks: Chunks) where Chunks.Element == ByteBuffer {
        self.init(size: size) {
            var iterator = chunks.makeAsyncIterator()
            return { try await iterator.next() }
        }
    }

    /// Creates an iterator; each one reads the body from its start.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(size: size, nextChunk: makeNext()) }

    /// Reads the chunks in order, checking they add up to ``BlobContent/size``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let size: Int64
        let nextChunk: () async throws -> ByteBuffer?
        var received: Int64 = 0

        /// The next chunk, or `nil` after the last one.
        public mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await nextChunk() else {
                guard received == size else {
                    throw BlobStoreError.unavailable("the stored body ended after \(received) of its \(size) bytes")
                }
                return nil
            }
            received += Int64(chunk.readableBytes)
            guard received <= size else { throw BlobStoreError.unavailable("the stored body is longer than its recorded \(size) bytes") }
            return chunk
        }
    }
}
