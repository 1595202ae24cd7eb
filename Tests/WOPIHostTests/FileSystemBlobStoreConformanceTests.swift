import Foundation
import Testing
import WOPIHost
import WOPIStoreTesting

/// The folder store against the blob store conformance suite that ships in WOPIStoreTesting.
@Suite("Folder blob store conformance")
struct FileSystemBlobStoreConformanceTests {
    @Test("keeps every blob store promise", arguments: BlobStoreConformance.Check.allCases)
    func conformance(_ check: BlobStoreConformance.Check) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-blobs-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await BlobStoreConformance {
            let store = try FileSystemBlobStore(folder: folder)
            // Every file in the folder, staging files included.
            return .init(store: store, contents: {
                var files: Set<String> = []
                let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
                while let url = enumerator?.nextObject() as? URL {
                    if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true { files.insert(url.path) }
                }
                return files
            })
        }.run(check)
    }
}
