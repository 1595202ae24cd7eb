import Foundation
import NIOCore
import Testing
@testable import WOPIHost

/// ``BodyMigration`` between two folder stores: a body copied under its key and checked, one already there skipped,
/// a wrong copy replaced, and a body whose bytes are not the recorded ones refused and not left behind.
@Suite("Moving bodies between stores")
struct BodyMigrationTests {
    /// Two empty folder stores, removed afterwards.
    static func withStores(_ body: (FileSystemBlobStore, FileSystemBlobStore) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-migration-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await body(try FileSystemBlobStore(folder: root.appendingPathComponent("source")),
                       try FileSystemBlobStore(folder: root.appendingPathComponent("target")))
    }

    static func bytes(of store: any BlobStore, _ blob: StoredBlob) async throws -> Data {
        var data = Data()
        for try await chunk in try await store.read(blob.key, size: blob.size) { data.append(contentsOf: chunk.readableBytesView) }
        return data
    }

    @Test("a body is copied under its key, then found there; a copy with other bytes is replaced")
    func copiesThenSkips() async throws {
        try await Self.withStores { source, target in
            let content = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let blob = try await source.write(DataChunks(data: content), maximumSize: Int64(content.count))
            let migration = BodyMigration(source: source, target: target)
            #expect(try await migration.copy(blob) == .copied)
            #expect(try await Self.bytes(of: target, blob) == content)
            #expect(try await migration.copy(blob) == .alreadyThere)
            // A copy of another body under the key (a store damaged since): copied again.
            let other = Data(repeating: 1, count: content.count)
            _ = try await target.write(DataChunks(data: other), as: blob.key, maximumSize: Int64(other.count))
            #expect(try await migration.copy(blob) == .copied)
            #expect(try await Self.bytes(of: target, blob) == content)
        }
    }

    @Test("a body whose bytes do not have the recorded SHA-256, or that is missing, is refused and nothing is left")
    func refusesDamagedSource() async throws {
        try await Self.withStores { source, target in
            let content = Data("the plan".utf8)
            var blob = try await source.write(DataChunks(data: content), maximumSize: Int64(content.count))
            let recorded = blob.sha256
            blob.sha256 = "bm90IHRoZSByZWNvcmRlZCBoYXNo"
            let migration = BodyMigration(source: source, target: target)
            await #expect(throws: BodyMigrationError.sourceDiffers(blob.key)) { try await migration.copy(blob) }
            await #expect(throws: BlobStoreError.notFound(blob.key)) { try await target.read(blob.key, size: blob.size) }
            blob.sha256 = recorded
            try await source.delete(blob.key)
            await #expect(throws: BlobStoreError.notFound(blob.key)) { try await migration.copy(blob) }
        }
    }
}
