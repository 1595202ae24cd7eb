import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

extension FilesCommand {
    /// `wopi files delete ID`: move a file or folder to its owner's trash.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a file or folder (with everything in it) to its owner's trash.",
            discussion: """
                It is gone for WOPI (404) at once and kept with its id, content, versions and shares until \
                `wopi trash restore ID` brings it back or the trash is emptied. Prints one JSON object: id, kind and \
                name. Exits 1 while someone holds the file's lock (or a lock on a file in the folder), 2 for an unknown \
                id or a user's root folder.
                """
        )
        @Argument(help: ArgumentHelp("The file or folder.", valueName: "id")) var id: String
        @Option(help: ArgumentHelp("Also append the audit event to this file as a JSON line.", valueName: "path")) var auditLog: String?
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard ResourceID(id) != nil else { throw ValidationError("'\(id)' is not a valid file or folder id") }
        }

        func run() async throws {
            let export = try openAuditExport(auditLog)
            try await dataOptions.withStorage { storage in
                let store = storage.store
                let item = try await SharesCommand.item(id, in: store)
                let trashed: TrashedItem
                do {
                    trashed = switch item.kind {
                    case .file: try await store.trashFile(item.id, lock: nil, now: Date())
                    case .container: try await store.trashContainer(item.id, onlyIfEmpty: false, now: Date())
                    }
                } catch WOPIStoreError.lockConflict(let lock, let reason) {
                    throw CLIError.Failure("\(id) is locked (\(reason)); current lock '\(lock)'")
                } catch WOPIStoreError.notAllowed(let reason) {
                    throw CLIError.InvalidInput(reason)
                }
                let owner = try await store.user(id: trashed.ownerID)?.name
                let event: AuditEvent.Kind = trashed.kind == .file ? .fileDeleted : .containerDeleted
                try await storage.audit(AuditEvent(event, user: owner, file: trashed.id.rawValue, details: ["name": trashed.name, "via": "cli"]),
                                        export: export)
                try printJSON(["id": trashed.id.rawValue, "kind": trashed.kind.rawValue, "name": trashed.name])
            }
        }
    }
}
