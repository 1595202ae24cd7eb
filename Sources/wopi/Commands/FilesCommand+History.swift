import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

// `wopi files history` and `wopi files restore`: the versions `wopi serve --keep-versions` keeps.
extension FilesCommand {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a document's versions as a JSON array, newest first.",
            discussion: """
                Prints [{"version": "v12", "size": 1234, "modified": "2026-11-23T19:00:00Z", "sha256": "…", "user": "demo"}, …]:
                the current content first, then the bodies earlier saves replaced (as many as `wopi serve
                --keep-versions` keeps). `user` is who saved that content (the owner for imported files). A save
                from a browser editor that says what kind it was adds `"save": ["modified-by-user", "autosave", "exit-save"]`
                (those that apply; Collabora Online's X-COOL-WOPI-IsModifiedByUser, IsAutosave and IsExitSave).
                """
        )

        @Argument(help: "The file id.") var id: String
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            guard let fileID = ResourceID(id) else { throw CLIError.InvalidInput("'\(id)' is not a file id") }
            try await dataOptions.withStorage { data in
                guard let file = try await data.store.file(id: fileID) else { throw CLIError.InvalidInput("no file with id \(id)") }
                let versions = try await data.store.versions(of: fileID)
                var names: [ResourceID: String] = [:]
                var entries: [[String: Any]] = []
                for version in versions {
                    let userID = version.modifiedBy ?? file.ownerID
                    if names[userID] == nil { names[userID] = try await data.store.user(id: userID)?.name ?? userID.rawValue }
                    var entry: [String: Any] = ["version": version.versionString, "size": version.size, "modified": isoTimestamp(version.modifiedAt),
                                                "sha256": version.sha256, "user": names[userID] ?? userID.rawValue]
                    // A browser editor's save says what kind it was (Collabora Online: modified-by-user, autosave, exit-save).
                    if let kinds = version.saveKinds { entry["save"] = kinds.names }
                    entries.append(entry)
                }
                try printJSONArray(entries)
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an earlier version of a document current again, as a new version.",
            discussion: """
                The current content is kept as a version in turn, so a restore can be undone the same way.
                Refused (exit 1, naming the lock) while a client holds the file's lock: break it first with
                `wopi locks break` if the client is gone. Prints {"id", "restored", "version"}.
                """
        )

        @Argument(help: "The file id.") var id: String
        @Option(name: .customLong("version"), help: ArgumentHelp("The version to restore, as `wopi files history` prints it (v12 or 12).", valueName: "version"))
        var versionText: String
        @Option(help: ArgumentHelp("Versions to keep per file. Defaults to the --keep-versions `wopi serve` last ran with (10 if never).",
                                   valueName: "n"))
        var keepVersions: Int?
        @Option(help: ArgumentHelp("Also append the restore to this audit log file (as `wopi serve --audit-log`); the store's trail always has it.", valueName: "path")) var auditLog: String?
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard ResourceID(id) != nil else { throw ValidationError("'\(id)' is not a file id") }
            guard Self.version(versionText) != nil else { throw ValidationError("--version '\(versionText)' is not a version like v12") }
            guard (0...1000).contains(keepVersions ?? 10) else { throw ValidationError("--keep-versions must be between 0 and 1000") }
        }

        static func version(_ text: String) -> Int64? {
            Int64(text.hasPrefix("v") ? String(text.dropFirst()) : text).flatMap { $0 > 0 ? $0 : nil }
        }

        func run() async throws {
            let fileID = ResourceID(id)!
            let version = Self.version(versionText)!
            let audit = try openAuditExport(auditLog)
            try await dataOptions.withStorage { data in
                let stored = try await data.store.hostSetting(named: OperationsOptions.keepVersionsSetting).flatMap(Int.init)
                let change: ContentChange
                do {
                    change = try await data.store.restoreVersion(fileID, version: version, restoredBy: nil,
                                                                 keepVersions: keepVersions ?? stored ?? 10, now: Date())
                } catch WOPIStoreError.notFound {
                    throw CLIError.InvalidInput(try await data.store.file(id: fileID) == nil ? "no file with id \(id)" : "file \(id) has no version v\(version)")
                } catch WOPIStoreError.lockConflict(let current, _) {
                    throw CLIError.Failure("file \(id) is locked (lock '\(current)'); nothing was restored")
                }
                // Bodies dropped from the history go by the same clean-up `wopi serve` runs at start: only bodies no
                // record refers to and older than its grace period, so an upload in flight elsewhere is never touched.
                if !change.droppedBlobs.isEmpty {
                    _ = try? await data.blobs.collectGarbage(referenced: try await data.store.referencedBlobs())
                }
                try await data.audit(AuditEvent(.fileRestored, file: fileID.rawValue,
                                                details: ["restored": "v\(version)", "old_version": change.previous.versionString,
                                                          "new_version": change.file.versionString, "via": "cli"]),
                                     export: audit)
                try printJSON(["id": fileID.rawValue, "restored": "v\(version)", "version": change.file.versionString])
            }
        }
    }
}

/// An ISO 8601 UTC timestamp with seconds, e.g. `2026-11-23T19:00:00Z`.
func isoTimestamp(_ date: Date) -> String {
    ISO8601DateFormatter().string(from: date)
}

/// Prints a JSON array on stdout with sorted keys.
func printJSONArray(_ array: [[String: Any]]) throws {
    let data = try JSONSerialization.data(withJSONObject: array, options: [.sortedKeys, .withoutEscapingSlashes])
    Console.line(String(decoding: data, as: UTF8.self))
}
