import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi locks`: see and break WOPI locks — the fix for a file a crashed client left locked.
struct LocksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locks",
        abstract: "List the files locked now, and break a stuck lock.",
        discussion: "Works while `wopi serve` runs on the same data folder.",
        subcommands: [List.self, Break.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the locks that have not expired as a JSON array.",
            discussion: #"Prints [{"file": "<id>", "name": "Budget.xlsx", "lock": "<lock value>", "expires": "2026-11-23T19:30:00Z"}, …], soonest expiry first."#
        )
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { data in
                let files = try await data.store.activeLocks(at: Date())
                try printJSONArray(files.compactMap { file in
                    file.lock.map { ["file": file.id.rawValue, "name": file.name, "lock": $0.lock.value, "expires": isoTimestamp($0.expiresAt)] as [String: Any] }
                })
            }
        }
    }

    struct Break: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a file's lock, whoever holds it, and say whose it was.",
            discussion: """
                The client that held the lock gets 409 on its next save and reopens the file. Prints the lock
                removed as one JSON object with file, name, lock, expires and owner; exits 1 when the file was not locked.
                """
        )
        @Argument(help: "The file id.") var id: String
        @Option(help: ArgumentHelp("Also append the break to this audit log file (as `wopi serve --audit-log`); the store's trail always has it.", valueName: "path")) var auditLog: String?
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard ResourceID(id) != nil else { throw ValidationError("'\(id)' is not a file id") }
        }

        func run() async throws {
            let fileID = ResourceID(id)!
            let audit = try openAuditExport(auditLog)
            try await dataOptions.withStorage { data in
                let result: (removed: LockState?, file: FileRecord)
                do { result = try await data.store.breakLock(fileID, now: Date()) } catch WOPIStoreError.notFound {
                    throw CLIError.InvalidInput("no file with id \(id)")
                }
                guard let removed = result.removed else { throw CLIError.Failure("file \(id) ('\(result.file.name)') is not locked") }
                let owner = try await data.store.user(id: result.file.ownerID)?.name ?? result.file.ownerID.rawValue
                try await data.audit(AuditEvent(.lockBroken, file: fileID.rawValue, details: ["lock": removed.lock.value, "via": "cli"]), export: audit)
                try printJSON(["file": fileID.rawValue, "name": result.file.name, "lock": removed.lock.value,
                               "expires": isoTimestamp(removed.expiresAt), "owner": owner])
            }
        }
    }
}
