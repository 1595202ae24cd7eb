import ArgumentParser
import Foundation
import WOPIHost

/// `wopi blobs`: the document bodies of a host's storage.
struct BlobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blobs",
        abstract: "Look after the document bodies of a host's storage.",
        subcommands: [Sweep.self, Migrate.self]
    )

    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove bodies no file refers to, and unfinished uploads, older than a given age.",
            discussion: """
                `wopi serve` does the same when it starts and every hour, for what is older than an hour. A body's age \
                is the time in its key, made by the host that wrote it, not the store's own timestamps. A running host's \
                upload in progress is younger than any sensible --older-than: keep it above the longest save takes. \
                Prints {"removed": N}.
                """
        )
        @Option(help: ArgumentHelp("Only what is older than this many seconds (default 3600).", valueName: "seconds"))
        var olderThan: Int = 3600
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard olderThan >= 0 else { throw ValidationError("--older-than must be 0 or more seconds, not \(olderThan)") }
        }

        func run() async throws {
            try await dataOptions.withStorage { storage in
                let removed = try await storage.blobs.collectGarbage(referenced: try await storage.store.referencedBlobs(),
                                                                     grace: TimeInterval(olderThan))
                try printJSON(["removed": removed])
            }
        }
    }
}
