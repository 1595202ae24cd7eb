import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi shares`: share files and folders with other users, list and remove shares.
struct SharesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares",
        abstract: "Share files and folders with other users as viewers or editors.",
        discussion: """
            A shared folder shares everything under it. The user finds shared items in "Shared with me", under \
            their root, in Office's file browser. A viewer opens and reads; an editor also saves, locks, renames \
            and creates inside a shared folder; only the owner deletes or moves. A user reaching an item along \
            several shares gets the highest role. Changes take effect on the user's next request, whatever token \
            they hold. Works while `wopi serve` runs on the same data.
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share a file or folder with a user, or change the role of an existing share.",
            discussion: """
                ID is a file id (from `wopi files add` or `wopi files list`) or a folder id. Prints the share as one \
                JSON object (the fields of `wopi shares list`). An unknown id or user, sharing an item with its owner, \
                or a role other than viewer or editor is invalid input (exit 2) and changes nothing.
                """
        )
        @Argument(help: ArgumentHelp("The file or folder to share.", valueName: "id")) var id: String
        @Option(name: .customLong("with"), help: ArgumentHelp("The user to share it with (sign-in name).", valueName: "user")) var user: String
        @Option(help: ArgumentHelp("What the user may do: viewer or editor.", valueName: "role")) var role: String
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard ResourceID(id) != nil else { throw ValidationError("'\(id)' is not a valid file or folder id") }
            guard AccessRole(grant: role) != nil else { throw ValidationError("--role must be viewer or editor, not '\(role)'") }
        }

        func run() async throws {
            try await dataOptions.withStorage { storage in
                let store = storage.store
                guard let grantee = try await store.user(named: user) else { throw CLIError.InvalidInput("no user named '\(user)'") }
                let item = try await SharesCommand.item(id, in: store)
                guard item.ownerID != grantee.id else { throw CLIError.InvalidInput("'\(user)' owns \(id); share it with someone else") }
                let share = try await store.share(item.id, kind: item.kind, with: grantee.id, role: AccessRole(grant: role)!, now: Date())
                try await storage.audit(AuditEvent(.shareAdded, time: share.sharedAt, user: grantee.name, file: item.id.rawValue,
                                                   details: ["role": share.role.rawValue, "kind": item.kind.rawValue, "via": "cli"]))
                try printJSON(try await SharesCommand.row(share, in: store))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print shares as a JSON array, oldest first.",
            discussion: """
                Each element has item (the file or folder id), kind (file or container), name (the item's name), \
                owner and user (sign-in names), role (viewer or editor) and shared (when, ISO 8601). With --user, \
                only the shares made with that user; an unknown user is invalid input (exit 2).
                """
        )
        @Option(help: ArgumentHelp("Only the shares made with this user (sign-in name).", valueName: "user")) var user: String?
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { storage in
                var userID: ResourceID?
                if let user {
                    guard let found = try await storage.store.user(named: user) else { throw CLIError.InvalidInput("no user named '\(user)'") }
                    userID = found.id
                }
                var rows: [[String: Any]] = []
                for share in try await storage.store.shares(with: userID) { rows.append(try await SharesCommand.row(share, in: storage.store)) }
                try printJSONArray(rows)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop sharing a file or folder with a user.",
            discussion: """
                The user's next request for the item, or for anything under a folder, is refused (404, as WOPI \
                answers a user without access), whatever token they hold. Prints the removed share as one JSON \
                object. An unknown id or user, or no such share, is invalid input (exit 2).
                """
        )
        @Argument(help: ArgumentHelp("The shared file or folder.", valueName: "id")) var id: String
        @Option(name: .customLong("with"), help: ArgumentHelp("The user to stop sharing it with (sign-in name).", valueName: "user")) var user: String
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard ResourceID(id) != nil else { throw ValidationError("'\(id)' is not a valid file or folder id") }
        }

        func run() async throws {
            try await dataOptions.withStorage { storage in
                let store = storage.store
                guard let grantee = try await store.user(named: user) else { throw CLIError.InvalidInput("no user named '\(user)'") }
                let item = try await SharesCommand.item(id, in: store)
                guard let share = try await store.shares(of: item.id).first(where: { $0.userID == grantee.id }),
                      try await store.removeShare(of: item.id, with: grantee.id)
                else { throw CLIError.InvalidInput("\(id) is not shared with '\(user)'") }
                try await storage.audit(AuditEvent(.shareRemoved, user: grantee.name, file: item.id.rawValue,
                                                   details: ["role": share.role.rawValue, "kind": item.kind.rawValue, "via": "cli"]))
                try printJSON(try await SharesCommand.row(share, in: store))
            }
        }
    }

    /// A file or folder by id, with its kind and owner; invalid input when neither exists.
    static func item(_ id: String, in store: any WOPIStore) async throws -> (id: ResourceID, kind: ShareRecord.ItemKind, ownerID: ResourceID, name: String) {
        guard let resource = ResourceID(id) else { throw CLIError.InvalidInput("'\(id)' is not a valid file or folder id") }
        if let file = try await store.file(id: resource) { return (resource, .file, file.ownerID, file.name) }
        if let container = try await store.container(id: resource) { return (resource, .container, container.ownerID, container.name) }
        throw CLIError.InvalidInput("no file or folder with id '\(id)'")
    }

    /// A share as `wopi shares list` prints it.
    static func row(_ share: ShareRecord, in store: any WOPIStore) async throws -> [String: Any] {
        let item = try await self.item(share.itemID.rawValue, in: store)
        return [
            "item": share.itemID.rawValue, "kind": share.itemKind.rawValue, "name": item.name,
            "owner": try await store.user(id: item.ownerID)?.name ?? item.ownerID.rawValue,
            "user": try await store.user(id: share.userID)?.name ?? share.userID.rawValue,
            "role": share.role.rawValue, "shared": isoTimestamp(share.sharedAt),
        ]
    }
}
