import Foundation
import NIOCore
import NIOConcurrencyHelpers

/// A request body for ``BlobStoreConformance``: given bytes in fixed-size chunks, optionally failing after some.
struct TestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    struct Interrupted: Error {}

    let bytes: Data
    let chunkSize: Int
    let failAfterChunks: Int?

    init(_ bytes: Data, chunkSize: Int = 4096, failAfterChunks: Int? = nil) {
        self.bytes = bytes
        self.chunkSize = chunkSize
        self.failAfterChunks = failAfterChunks
    }

    /// `count` bytes that differ from one offset to the next, so a misplaced chunk shows.
    static func pattern(count: Int, seed: UInt8) -> Data {
        Data((0..<count).lazy.map { index in UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) ^ seed })
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: TestBody
        var offset = 0
        var sent = 0
        mutating func next() async throws -> ByteBuffer? {
            if let limit = body.failAfterChunks, sent == limit { throw Interrupted() }
            guard offset < body.bytes.count else { return nil }
            let end = Swift.min(offset + body.chunkSize, body.bytes.count)
            defer { offset = end; sent += 1 }
            return ByteBuffer(bytes: body.bytes[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}

/// A body that never ends on its own (up to `limit` bytes), counting what the store pulled from it.
final class EndlessBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    struct LimitReached: Error {}

    let chunkSize: Int
    let limit: Int64
    private let pulled = NIOLockedValueBox<Int64>(0)

    init(chunkSize: Int, limit: Int64) {
        self.chunkSize = chunkSize
        self.limit = limit
    }

    func pulledBytes() -> Int64 { pulled.withLockedValue { $0 } }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: EndlessBody
        func next() async throws -> ByteBuffer? {
            let total = body.pulled.withLockedValue { value in value += Int64(body.chunkSize); return value }
            guard total <= body.limit else { throw LimitReached() }
            return ByteBuffer(repeating: 0x5A, count: body.chunkSize)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
