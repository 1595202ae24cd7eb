import Crypto
import Foundation
import NIOCore

/// Copies recorded bodies from one store to another under the same keys, checking every copy against the SHA-256
/// recorded when the body was written, so the database can switch to the other store without a body changing.
///
/// Each body is streamed (never whole in memory) and read back from the target once written. A body the target
/// already holds with the recorded SHA-256 is left as it is, so a copy cut off part-way is finished by running it
/// again. The source is only read: its bodies stay until someone removes them.
public struct BodyMigration: Sendable {
    /// Where the bodies are now.
    public let source: any BlobStore
    /// Where they go.
    public let target: any KeyedBlobStore

    /// What happened to one body.
    public enum Outcome: Sendable, Hashable {
        /// Copied and read back with the recorded SHA-256.
        case copied
        /// The target already held it with the recorded SHA-256 (a run before this one copied it).
        case alreadyThere
    }

    /// A migration from `source` to `target`.
    public init(source: any BlobStore, target: any KeyedBlobStore) {
        self.source = source
        self.target = target
    }

    /// Makes `body` present in the target, under its key, with its recorded size and SHA-256.
    ///
    /// Throws ``BlobStoreError/notFound(_:)`` when the source has no such body, ``BodyMigrationError`` when the
    /// source's bytes or the copy's do not have the recorded SHA-256 (a wrong copy is removed again), and the stores'
    /// own errors.
    public func copy(_ body: StoredBlob) async throws -> Outcome {
        if await targetHolds(body) { return .alreadyThere }
        let written = try await target.write(try await source.read(body.key, size: body.size), as: body.key, maximumSize: body.size)
        guard written.sha256 == body.sha256, written.size == body.size else {
            try? await target.delete(body.key)
            throw BodyMigrationError.sourceDiffers(body.key)
        }
        guard await targetHolds(body) else {
            try? await target.delete(body.key)
            throw BodyMigrationError.copyDiffers(body.key)
        }
        return .copied
    }

    /// Whether the target has a body of `body`'s key that reads back whole with its recorded SHA-256. A body that is
    /// missing, of another length, or unreadable is not there: copying it again replaces it, or reports why it cannot.
    private func targetHolds(_ body: StoredBlob) async -> Bool {
        guard let content = try? await target.read(body.key, size: body.size) else { return false }
        return (try? await Self.sha256(of: content)) == body.sha256
    }

    /// The base64 SHA-256 of a body's bytes, streamed.
    static func sha256(of content: BlobContent) async throws -> String {
        var hasher = SHA256()
        for try await chunk in content {
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        return Data(hasher.finalize()).base64EncodedString()
    }
}
