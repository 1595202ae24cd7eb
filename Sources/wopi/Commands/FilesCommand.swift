import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi files`: put documents into the host's storage.
struct FilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Add, list and delete documents in the host's storage; show and restore their versions.",
        subcommands: [Add.self, List.self, History.self, Restore.self, Delete.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a document for a user.",
            discussion: """
                Copies PATH into the body folder (streaming it) and records it in the store and prints one JSON object: id, name, wopiSrc.
                The WOPISrc uses the public URL `wopi serve` last ran under, unless --public-url is given.
                """
        )

        @Argument(help: "The file to add.") var path: String
        @Option(help: "The user who owns it.") var owner: String
        @Option(help: "A folder in the owner's root to put it in; created if missing.") var folder: String?
        @Option(help: "The name to store it under. Defaults to the file's own name.") var name: String?
        @Option(help: "Base URL for the printed WOPISrc.") var publicURL: String?
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            let fileURL = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw CLIError.InvalidInput("no such file: \(path)")
            }
            let storedName = name ?? fileURL.lastPathComponent
            do { _ = try WOPIName(fileName: storedName) } catch {
                throw CLIError.InvalidInput("file name '\(storedName)' is not allowed: \(error); pass --name")
            }
            try await dataOptions.withStorage { storage in
                let base = try await PublicURLSetting.resolve(publicURL, in: storage)
                guard let user = try await storage.store.user(named: owner) else { throw CLIError.InvalidInput("no user named '\(owner)'") }
                var container = user.rootContainerID
                if let folder {
                    do { _ = try WOPIName(folder) } catch { throw CLIError.InvalidInput("folder name '\(folder)' is not allowed: \(error)") }
                    let existing = try await storage.store.children(of: container).containers.first { $0.name.lowercased() == folder.lowercased() }
                    if let existing {
                        container = existing.id
                    } else {
                        container = try await storage.store.createContainer(named: folder, in: container).id
                    }
                }
                do {
                    let file = try await storage.importFile(at: fileURL, as: storedName, into: container, maximumSize: .max)
                    try await storage.audit(AuditEvent(.fileAdded, user: user.name, file: file.id.rawValue,
                                                       details: ["name": file.name, "size": String(file.size), "via": "cli"]))
                    try printJSON(["id": file.id.rawValue, "name": file.name, "wopiSrc": "\(base.absoluteString)/wopi/files/\(file.id)"])
                } catch WOPIStoreError.nameTaken(let taken) {
                    throw CLIError.InvalidInput("'\(taken)' already exists in that folder; pass --name")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a user's documents as JSON lines (root and one level of folders).")
        @Option(help: "The owner.") var owner: String
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            let files = try await dataOptions.withStorage { storage in
                guard let user = try await storage.store.user(named: owner) else { throw CLIError.InvalidInput("no user named '\(owner)'") }
                let root = try await storage.store.children(of: user.rootContainerID)
                var files = root.files.map { ($0, "") }
                for folder in root.containers { files += try await storage.store.children(of: folder.id).files.map { ($0, folder.name) } }
                return files
            }
            for (file, folder) in files {
                try printJSON(["id": file.id.rawValue, "name": file.name, "folder": folder, "size": file.size, "version": file.versionString])
            }
        }
    }
}
