import Foundation
import NIOCore
import Testing
import WOPICore
@testable import WOPIHost

/// The host's purge of its trash past `--trash-days`: items and their bodies go, the audit trail says so.
@Suite struct TrashRetentionTests {
    @Test("the periodic purge removes what is past the retention, with its bodies, and audits it", arguments: StoreKind.allCases)
    func purgeExpired(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "pia", displayName: "Pia", passwordHash: .unusable)
            let start = Date()
            let old = try await storage.importFile(data: Data("old body".utf8), as: "old.docx", into: user.rootContainerID)
            let young = try await storage.importFile(data: Data("young body".utf8), as: "young.docx", into: user.rootContainerID)
            _ = try await store.trashFile(old.id, lock: nil, now: start.addingTimeInterval(-8 * 86_400))
            _ = try await store.trashFile(young.id, lock: nil, now: start.addingTimeInterval(-6 * 86_400))

            let log = FileManager.default.temporaryDirectory.appendingPathComponent("trash-audit-\(UUID().uuidString).log")
            defer { try? FileManager.default.removeItem(at: log) }
            let retention = TrashRetention(store: store, blobs: storage.blobs, days: 7, monitor: HostMonitor(audit: try AuditLog(path: log.path)),
                                           now: { start })
            #expect(await retention.purgeExpired().map(\.id) == [old.id])
            #expect(try await store.trashedItems(ownedBy: nil).map(\.id) == [young.id])
            await #expect(throws: (any Error).self) { _ = try await Self.body(old, in: storage) }
            #expect(try await Self.body(young, in: storage) == Data("young body".utf8), "a young item keeps its body")
            #expect(await retention.purgeExpired().isEmpty, "a second pass finds nothing more")

            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("\"trash.purged\"") && lines[0].contains(old.id.rawValue) && lines[0].contains("\"expired\"")
                    && lines[0].contains("\"user\":\"pia\""),
                    "\(lines)")
        }
    }

    /// A file's body, read from the blob store.
    static func body(_ file: FileRecord, in storage: HostStorage) async throws -> Data {
        var data = Data()
        for try await chunk in try await storage.blobs.read(file.blobKey, size: file.size) { data.append(contentsOf: chunk.readableBytesView) }
        return data
    }
}
