import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi trash`: list, restore and empty the trash deleted files and folders go to.
struct TrashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List, restore and empty the trash deleted files and folders go to.",
        discussion: """
            DeleteFile, DeleteContainer, the web front and `wopi files delete` move an item to its owner's trash: \
            gone for WOPI (404), kept with its id, content, versions and shares until it is restored or purged. \
            `wopi serve --trash-days N` (default 30) purges older items with their bodies at start and every hour.
            """,
        subcommands: [List.self, Restore.self, Empty.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print trashed items as JSON lines, newest first.",
            discussion: """
                Each line has id, kind (file or container), name, owner (sign-in name), folder (the id of the folder \
                it was deleted from), trashed (when, ISO 8601) and size (bytes; a folder's is the sum of its files). \
                With --user, only that user's trash; an unknown user is invalid input (exit 2).
                """
        )
        @Option(help: ArgumentHelp("Only this user's trash (sign-in name).", valueName: "user")) var user: String?
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { storage in
                let owner = try await TrashCommand.user(user, in: storage.store)
                var names: [ResourceID: String] = [:]
                for item in try await storage.store.trashedItems(ownedBy: owner?.id) {
                    if names[item.ownerID] == nil { names[item.ownerID] = try await storage.store.user(id: item.ownerID)?.name ?? item.ownerID.rawValue }
                    try printJSON(["id": item.id.rawValue, "kind": item.kind.rawValue, "name": item.name, "owner": names[item.ownerID] ?? "",
                                   "folder": item.originalFolderID.rawValue, "trashed": isoTimestamp(item.trashedAt), "size": item.size])
                }
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring a file or folder back from the trash, with its id, content, versions and shares.",
            discussion: """
                It goes back into the folder it was deleted from; when that folder is itself in the trash or gone, into \
                the owner's root, and a line on stderr says so. Prints one JSON object: id, kind, name, folder (where it \
                went) and to_root. Exits 1 when the name is taken there now (pass --as NAME), 2 for an id that is not \
                in the trash or a name that is not allowed.
                """
        )
        @Argument(help: ArgumentHelp("The trashed file or folder (its id, as `wopi trash list` prints it).", valueName: "id")) var id: String
        @Option(name: .customLong("as"), help: ArgumentHelp("Restore it under this name instead of its own.", valueName: "name")) var name: String?
        @Option(help: ArgumentHelp("Also append the audit event to this file as a JSON line.", valueName: "path")) var auditLog: String?
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard ResourceID(id) != nil else { throw ValidationError("'\(id)' is not a valid file or folder id") }
            if let name {
                do { _ = try WOPIName(name) } catch { throw ValidationError("the name '\(name)' is not allowed: \(error)") }
            }
        }

        func run() async throws {
            let export = try openAuditExport(auditLog)
            try await dataOptions.withStorage { storage in
                let itemID = ResourceID(id)!
                let restore: TrashRestore
                do {
                    restore = try await storage.store.restoreFromTrash(itemID, as: name)
                } catch WOPIStoreError.notFound {
                    throw CLIError.InvalidInput("no item with id \(id) in the trash")
                } catch WOPIStoreError.nameTaken(let taken) {
                    throw CLIError.Failure("'\(taken)' is taken in the folder it would go back to; pass --as NAME to restore it under another name")
                }
                let owner = try await storage.store.user(id: restore.item.ownerID)
                let toRoot = if case .ownerRoot = restore.destination { true } else { false }
                if toRoot {
                    Console.line("wopi: the folder '\(restore.item.name)' was deleted from is in the trash or gone; restored to \(owner?.name ?? "the owner")'s root",
                                 to: .standardError)
                }
                try await storage.audit(AuditEvent(.trashRestored, user: owner?.name, file: itemID.rawValue,
                                                   details: ["kind": restore.item.kind.rawValue, "name": restore.name,
                                                             "folder": restore.destination.folderID.rawValue, "to_root": String(toRoot), "via": "cli"]),
                                        export: export)
                try printJSON(["id": itemID.rawValue, "kind": restore.item.kind.rawValue, "name": restore.name,
                               "folder": restore.destination.folderID.rawValue, "to_root": toRoot])
            }
        }
    }

    struct Empty: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove trashed items for good, with their content and versions.",
            discussion: """
                Without options, every item in every user's trash. --older-than DAYS keeps the items trashed in the \
                last DAYS days; --user only empties that user's trash. Prints one JSON object: removed (how many) and \
                items (their ids).
                """
        )
        @Option(help: ArgumentHelp("Only items trashed more than this many days ago (a whole number, 0 or more).", valueName: "days"))
        var olderThan: String?
        @Option(help: ArgumentHelp("Only this user's trash (sign-in name).", valueName: "user")) var user: String?
        @Option(help: ArgumentHelp("Also append the audit events to this file as JSON lines.", valueName: "path")) var auditLog: String?
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            if let olderThan, Int(olderThan).map({ !(0...TrashRules.retentionDays.upperBound).contains($0) }) ?? true {
                throw ValidationError("--older-than '\(olderThan)' must be a whole number of days between 0 and \(TrashRules.retentionDays.upperBound)")
            }
        }

        func run() async throws {
            let export = try openAuditExport(auditLog)
            try await dataOptions.withStorage { storage in
                let owner = try await TrashCommand.user(user, in: storage.store)
                let now = Date()
                let cutoff = olderThan.flatMap(Int.init).map { TrashRules.purgeCutoff(now: now, retentionDays: $0) }
                let purge = try await storage.store.emptyTrash(ownedBy: owner?.id, trashedBefore: cutoff)
                for blob in purge.blobs { try? await storage.blobs.delete(blob) }
                for item in purge.removed {
                    let name = try await storage.store.user(id: item.ownerID)?.name
                    try await storage.audit(AuditEvent(.trashPurged, time: now, user: name, file: item.id.rawValue,
                                                       details: ["kind": item.kind.rawValue, "name": item.name, "reason": "emptied", "via": "cli"]),
                                            export: export)
                }
                try printJSON(["removed": purge.removed.count, "items": purge.removed.map(\.id.rawValue)])
            }
        }
    }

    /// The user named `name`, or `nil` when no name is given; invalid input for an unknown name.
    static func user(_ name: String?, in store: any WOPIStore) async throws -> UserRecord? {
        guard let name else { return nil }
        guard let user = try await store.user(named: name) else { throw CLIError.InvalidInput("no user named '\(name)'") }
        return user
    }
}
