import Foundation
import Testing
import WOPICore
@testable import WOPIHost

#if canImport(Glibc)
import Glibc
#endif

/// A blob folder on a full disk: a 2 MiB tmpfs mounted for the test (the suite runs as root, as CI does).
/// Saves that cannot be written answer 500 with `X-WOPI-ServerError: no space left on the document store`
/// (no path in it), count in a metric, leave an audit line, and change nothing.
@Suite("Document write failures")
struct DocumentWriteFailureTests {
    #if os(Linux)
    @Test("PutFile and PutRelativeFile on a full blob folder: 500 with the reason, a metric and an audit line, and the old content and Version stay")
    func diskFull() async throws {
        let mount = try SizeLimitedFolder(megabytes: 2)
        defer { mount.remove() }
        let auditPath = FileManager.default.temporaryDirectory.appendingPathComponent("write-failure-audit-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: auditPath) }
        let metrics = HostMetrics()
        try await TestHost.run(monitor: HostMonitor(metrics: metrics, audit: try AuditLog(path: auditPath)), blobs: mount.url) { host in
            let doc = try await host.document("Budget.xlsx", Data("the saved budget".utf8))
            expectStatus(try await host.lock(doc.id, token: doc.token, "budget-lock"), 200)
            let before = try await host.snapshot(doc)
            try mount.fill()

            let body = Data(repeating: 0x42, count: 512 * 1024)
            let put = try await host.putFile(doc.id, token: doc.token, lock: "budget-lock", body)
            let relative = try await host.putRelativeFile(doc.id, token: doc.token, suggested: ".xlsx", body)
            for (name, response) in [("PutFile", put), ("PutRelativeFile", relative)] {
                #expect(response.status == 500, "\(name): \(response)")
                #expect(response.header("X-WOPI-ServerError") == "no space left on the document store", "\(name): \(response)")
                #expect(!response.text.contains(mount.url.path) && !response.text.contains("/"), "\(name) names a path: \(response.text)")
            }
            // Nothing recorded: same bytes, Version, lock, tree, stored bodies, and no upload left in staging.
            #expect(try await host.stagingSettles().isEmpty)
            #expect(try await host.snapshot(doc) == before)
            #expect(metrics.exposition().contains(#"wopi_document_write_errors_total{reason="no_space"} 2"#), "\(metrics.exposition())")
            let lines = try String(contentsOfFile: auditPath, encoding: .utf8).split(separator: "\n")
                .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["event"] as? String == "file.write_failed" }
            #expect(lines.compactMap { $0["operation"] as? String }.sorted() == ["PutFile", "PutRelativeFile"], "\(lines)")
            #expect(lines.allSatisfy { $0["reason"] as? String == "no_space" && $0["file"] as? String == doc.id }, "\(lines)")

            // With room again, the same save works.
            mount.emptyFiller()
            expectStatus(try await host.putFile(doc.id, token: doc.token, lock: "budget-lock", body), 200)
            let saved = try await host.getFile(doc.id, token: doc.token).body == body
            #expect(saved, "GetFile returns the body saved once there is room")
        }
    }
    #endif

    @Test("Each errno gets its own reason without a path; errors that carry none are not taken for write failures")
    func reasons() {
        #expect(DocumentWriteFailure(errno: ENOSPC).message == "no space left on the document store")
        #expect(DocumentWriteFailure(errno: EDQUOT).reason == "quota")
        #expect(DocumentWriteFailure(errno: EROFS).reason == "read_only")
        #expect(DocumentWriteFailure(errno: EIO).reason == "io")
        let other = DocumentWriteFailure(errno: EMFILE)
        #expect(other.reason == "other" && other.message.hasPrefix("the document store could not write the file: ") && !other.message.contains("/"))
        #expect(DocumentWriteFailure(POSIXError(.ENOSPC))?.reason == "no_space")
        #expect(DocumentWriteFailure(BlobStoreError.tooLarge(maximumSize: 1)) == nil)
    }
}

#if os(Linux)
/// A folder on a tmpfs of its own, so a test can fill it up; unmounted and removed by ``remove()``.
struct SizeLimitedFolder {
    let url: URL
    private var filler: URL { url.appendingPathComponent("filler") }

    init(megabytes: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-full-disk-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let status = url.path.withCString { target in
            "tmpfs".withCString { source in "size=\(megabytes)m".withCString { options in
                Glibc.mount(source, target, source, 0, options)
            } }
        }
        guard status == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: url)
            throw SizeLimitedFolderError(description: "mounting a \(megabytes) MiB tmpfs at \(url.path) failed (\(reason)): this test needs root, as CI runs")
        }
    }

    /// Writes a filler file until the file system is full.
    func fill() throws {
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw SizeLimitedFolderError(description: "cannot create the filler file") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { throw SizeLimitedFolderError(description: "filling the tmpfs stopped with \(String(cString: strerror(errno)))") }
    }

    /// Frees the space ``fill()`` took.
    func emptyFiller() {
        unlink(filler.path)
    }

    func remove() {
        umount2(url.path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(at: url)
    }
}

struct SizeLimitedFolderError: Error, CustomStringConvertible {
    let description: String
}
#endif
