import Crypto
import Foundation
import NIOCore

/// A large, deterministic, incompressible body produced chunk by chunk, so a test can upload
/// tens of MiB without ever holding them, and know their SHA-256 without storing them.
struct PatternBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let chunkCount: Int
    let chunkSize: Int
    let seed: UInt64

    var totalSize: Int64 { Int64(chunkCount) * Int64(chunkSize) }

    /// Chunk `index`: xorshift64* output, so no two chunks are alike.
    func chunk(_ index: Int) -> ByteBuffer {
        var state = seed ^ (UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(chunkSize)
        for _ in 0..<(chunkSize / 8) {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            buffer.writeInteger(state &* 0x2545_F491_4F6C_DD1D, endianness: .little)
        }
        return buffer
    }

    /// The SHA-256 of the whole body, computed by generating it once more.
    func sha256() -> SHA256.Digest {
        var hasher = SHA256()
        for index in 0..<chunkCount {
            chunk(index).withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        return hasher.finalize()
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: PatternBody
        var next = 0
        mutating func next() async -> ByteBuffer? {
            guard next < body.chunkCount else { return nil }
            defer { next += 1 }
            return body.chunk(next)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
