import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// Everything a hostile request could change, captured so a test can prove it changed nothing.
///
/// The file's record (name, size, Version, SHA-256, blob key, lock and its expiry) comes from the
/// store; its bytes and lock come over HTTP, as a client would see them; the user's whole tree,
/// the user record, and the data folder's `blobs/` and `tmp/` listings catch side effects
/// elsewhere (a stray file, an orphaned upload, a renamed container).
struct HostileSnapshot: Sendable, Equatable {
    var record: FileRecord
    var content: Data
    var itemVersion: String?
    var lock: String?
    var user: UserRecord
    /// `container path/name → version` for every file, and `path/` for every container, of the user.
    var tree: [String: String]
    /// Paths of every stored body under `blobs/`.
    var blobs: Set<String>
    /// Names under `tmp/`.
    var staging: Set<String>
}

extension TestHost {
    /// Captures the state of `document` and of everything its user owns.
    func snapshot(_ document: Document) async throws -> HostileSnapshot {
        let record = try #require(try await folder.store.file(id: document.file.id), "the file vanished")
        let get = try await getFile(document.id, token: document.token)
        #expect(get.status == 200, "GetFile after a hostile request: \(get)")
        let lock = try await getLock(document.id, token: document.token)
        #expect(lock.status == 200, "GetLock after a hostile request: \(lock)")
        let user = try #require(try await folder.store.user(id: document.user.id), "the user vanished")
        return HostileSnapshot(record: record, content: get.body, itemVersion: get.header("X-WOPI-ItemVersion"),
                               lock: lock.header("X-WOPI-Lock"), user: user,
                               tree: try await tree(of: user.rootContainerID, path: ""),
                               blobs: Self.listing(folder.fileBlobs.folder, recursive: true),
                               staging: Self.listing(folder.fileBlobs.stagingFolder, recursive: false))
    }

    private func tree(of container: ResourceID, path: String) async throws -> [String: String] {
        let children = try await folder.store.children(of: container)
        var result: [String: String] = [:]
        for file in children.files { result[path + file.name] = file.versionString }
        for child in children.containers {
            result[path + child.name + "/"] = child.id.rawValue
            result.merge(try await tree(of: child.id, path: path + child.name + "/")) { first, _ in first }
        }
        return result
    }

    static func listing(_ url: URL, recursive: Bool) -> Set<String> {
        guard recursive else { return Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []) }
        let paths = FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []
        return Set(paths.filter { $0.contains("/") && !$0.hasPrefix(".") }) // not the staging folder
    }

    /// Waits (up to `seconds`) until `tmp/` is empty, as it must be soon after a dropped upload.
    func stagingSettles(within seconds: Double = 5) async throws -> Set<String> {
        let deadline = Date().addingTimeInterval(seconds)
        var left = Self.listing(folder.fileBlobs.stagingFolder, recursive: false)
        while !left.isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            left = Self.listing(folder.fileBlobs.stagingFolder, recursive: false)
        }
        return left
    }
}

/// Checks that a hostile request left no trace, naming each part that changed.
func expectUnchanged(_ before: HostileSnapshot, _ after: HostileSnapshot, _ what: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(after.content == before.content,
            "\(what): content changed (\(before.content.count) → \(after.content.count) bytes)", sourceLocation: sourceLocation)
    #expect(after.record == before.record, "\(what): file record changed: \(before.record) → \(after.record)", sourceLocation: sourceLocation)
    #expect(after.itemVersion == before.itemVersion, "\(what): X-WOPI-ItemVersion changed", sourceLocation: sourceLocation)
    #expect(after.lock == before.lock, "\(what): lock changed: \(before.lock.map { "\($0.prefix(40))" } ?? "nil") → \(after.lock.map { "\($0.prefix(40))" } ?? "nil")",
            sourceLocation: sourceLocation)
    #expect(after.user == before.user, "\(what): user record changed", sourceLocation: sourceLocation)
    #expect(after.tree == before.tree, "\(what): files or containers changed: \(before.tree) → \(after.tree)", sourceLocation: sourceLocation)
    #expect(after.blobs == before.blobs, "\(what): stored bodies changed: +\(after.blobs.subtracting(before.blobs)) −\(before.blobs.subtracting(after.blobs))",
            sourceLocation: sourceLocation)
    #expect(after.staging.isEmpty, "\(what): left in tmp/: \(after.staging)", sourceLocation: sourceLocation)
    #expect(sha256Base64(after.content) == after.record.sha256, "\(what): SHA256 does not match the content", sourceLocation: sourceLocation)
}
