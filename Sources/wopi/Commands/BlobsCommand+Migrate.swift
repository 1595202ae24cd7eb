import ArgumentParser
import Foundation
import WOPIHost

extension BlobsCommand {
    /// `wopi blobs migrate --to STORE`: every body the storage refers to, copied to another store, which the storage
    /// then records as its own.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy every body to another store, then make it the storage's store.",
            discussion: """
                Copies the body of every file and kept version from the store the storage records (give it with \
                --blobs, as every command does) to --to, streaming, under the same keys, and reads each copy back to \
                check its SHA-256 against the one recorded when it was written. A body --to already holds with that \
                SHA-256 is skipped, so a run that was stopped is finished by running it again. Progress goes to stderr. \
                When every body is there, the storage records --to in one step: from then on every host and command \
                must give --blobs as --to. The old bodies stay where they were; remove them when you no longer need them. \
                Stop the hosts first: a save during the copy may not be copied. Prints {"bodies": N, "copied": N, \
                "already_there": N, "bytes": N, "blobs": STORE}. Exit 1 when a body cannot be copied (nothing is \
                switched; what was copied stays and is skipped next time), 2 for a --to that is not a store or is the \
                current one.
                """
        )
        @Option(help: ArgumentHelp("The store to move the bodies to, written as for --blobs: a folder, or s3://BUCKET[/PREFIX]?endpoint=URL&region=R.",
                                   valueName: "dir|s3-url"))
        var to: String
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            do { _ = try BlobStoreAddress(parsing: to) } catch { throw ValidationError("--to: \(error)") }
        }

        func run() async throws {
            let target = try BlobStoreAddress(parsing: to)
            let current = try dataOptions.blobStoreAddress()
            guard !target.isSame(as: current) else {
                throw CLIError.InvalidInput("--to names the store the bodies are already in: \(current)")
            }
            try await dataOptions.withStorage { storage in
                let (targetStore, closeTarget) = try await dataOptions.openBlobStore(at: target)
                do {
                    let tally = try await copyEverything(of: storage, to: targetStore, current: current, target: target)
                    try await BlobStoreRecord.switchTo(target, in: storage.store, dataFolder: dataOptions.usesDatabase ? nil : dataOptions.dataFolder)
                    await closeTarget()
                    Console.line("wopi: the storage now keeps its bodies in \(target); the old bodies are still in \(current), "
                                 + "remove them when you no longer need them", to: .standardError)
                    try printJSON(["bodies": tally.bodies, "copied": tally.copied, "already_there": tally.alreadyThere, "bytes": tally.bytes,
                                   "blobs": "\(target)"])
                } catch {
                    await closeTarget()
                    throw error
                }
            }
        }

        /// What a run did.
        struct Tally {
            var bodies = 0
            var copied = 0
            var alreadyThere = 0
            var bytes: Int64 = 0
        }

        /// Copies every referenced body, then those referred to since the copy began, until a pass finds none new.
        private func copyEverything(of storage: HostStorage, to targetStore: any KeyedBlobStore, current: BlobStoreAddress,
                                    target: BlobStoreAddress) async throws -> Tally {
            let migration = BodyMigration(source: storage.blobs, target: targetStore)
            var tally = Tally()
            var done: Set<BlobKey> = []
            while true {
                let bodies = try await storage.store.referencedBodies().filter { !done.contains($0.key) }
                guard !bodies.isEmpty else { return tally }
                let total = tally.bodies + bodies.count
                let totalBytes = tally.bytes + bodies.reduce(0) { $0 + $1.size }
                for body in bodies {
                    let outcome: BodyMigration.Outcome
                    do {
                        outcome = try await migration.copy(body)
                    } catch {
                        throw CLIError.Failure("body \(body.key): \(Self.reason(error)); \(tally.bodies) of \(total) bodies (\(tally.bytes) bytes) "
                                               + "are in \(target), the storage still keeps its bodies in \(current): run the same command again to finish")
                    }
                    done.insert(body.key)
                    tally.bodies += 1
                    tally.bytes += body.size
                    if outcome == .copied { tally.copied += 1 } else { tally.alreadyThere += 1 }
                    Console.line("wopi: \(tally.bodies)/\(total) bodies, \(tally.bytes)/\(totalBytes) bytes: \(body.key) "
                                 + (outcome == .copied ? "copied" : "already there"), to: .standardError)
                }
            }
        }

        /// A store's error as one short reason.
        private static func reason(_ error: any Error) -> String {
            switch error {
            case BlobStoreError.notFound: "missing from the current store"
            default: "\(error)"
            }
        }
    }
}
