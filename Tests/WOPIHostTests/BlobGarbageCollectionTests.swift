import Foundation
import NIOCore
import Testing
@testable import WOPIHost

/// The orphan sweep each host runs at start, on a body folder other hosts share: it removes only what
/// is both unreferenced and old, so a body another host has written but not yet recorded survives.
@Suite("Body folder garbage collection")
struct BlobGarbageCollectionTests {
    @Test func onlyOldUnreferencedBodiesAndStagingFilesAreRemoved() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-gc-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostA = try FileSystemBlobStore(folder: folder)
        let hostB = try FileSystemBlobStore(folder: folder) // a second host on the same mount
        func body(_ text: String) -> AsyncStream<ByteBuffer> {
            AsyncStream { $0.yield(ByteBuffer(string: text)); $0.finish() }
        }
        let recorded = try await hostA.write(body("recorded"), maximumSize: 100)
        let oldOrphan = try await hostA.write(body("orphan"), maximumSize: 100)
        let justWritten = try await hostB.write(body("written by B, about to be recorded"), maximumSize: 100)
        let oldStaging = hostA.stagingFolder.appendingPathComponent("crashed.part")
        let liveStaging = hostA.stagingFolder.appendingPathComponent("in-flight.part")
        try Data("half".utf8).write(to: oldStaging)
        try Data("half".utf8).write(to: liveStaging)
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        for url in [path(of: recorded.key, in: folder), path(of: oldOrphan.key, in: folder), oldStaging] {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: url.path)
        }

        let removed = try await hostA.collectGarbage(referenced: [recorded.key])
        #expect(removed == 2)
        #expect(FileManager.default.fileExists(atPath: path(of: recorded.key, in: folder).path), "a recorded body stays, however old")
        #expect(!FileManager.default.fileExists(atPath: path(of: oldOrphan.key, in: folder).path), "an old orphan goes")
        #expect(FileManager.default.fileExists(atPath: path(of: justWritten.key, in: folder).path), "another host's fresh body stays")
        #expect(!FileManager.default.fileExists(atPath: oldStaging.path))
        #expect(FileManager.default.fileExists(atPath: liveStaging.path), "an upload in flight on another host stays")
    }

    private func path(of key: BlobKey, in folder: URL) -> URL {
        folder.appendingPathComponent("\(key.rawValue.prefix(2))/\(key.rawValue)")
    }
}
