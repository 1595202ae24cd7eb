import Foundation
import WOPIHost

/// The host setting that records where a storage's bodies live, so that no command or host puts bodies in, or
/// looks for them in, another store than the one its files refer to.
///
/// The first open records the store it was given (a storage from before the record: the store it is opened with,
/// once that store is seen to hold a body the storage refers to). Every later open must name the same store; only
/// `wopi blobs migrate` changes the record, after it has copied every body.
enum BlobStoreRecord {
    /// The setting's name.
    static let name = "blob-store"

    /// The store the storage records; `nil` when it records none yet. `dataFolder` is SQLite's data folder.
    static func read(in store: any WOPIStore, dataFolder: URL?) async throws -> BlobStoreAddress? {
        guard let text = try await store.hostSetting(named: name) else { return nil }
        do { return try BlobStoreAddress(recorded: text, dataFolder: dataFolder) } catch {
            throw CLIError.Failure("the storage records its bodies in '\(text)', which cannot be read: \(error)")
        }
    }

    /// Records `address` unless the storage records a store already; returns the recorded one. Two first opens at
    /// once agree: the setting is inserted only when absent (as a host secret is), and both read back the winner.
    static func recordIfAbsent(_ address: BlobStoreAddress, in store: any WOPIStore, dataFolder: URL?) async throws -> BlobStoreAddress {
        let text = address.recorded(dataFolder: dataFolder)
        let stored = String(decoding: try await store.hostSecret(named: name, orCreate: { Data(text.utf8) }), as: UTF8.self)
        do { return try BlobStoreAddress(recorded: stored, dataFolder: dataFolder) } catch {
            throw CLIError.Failure("the storage records its bodies in '\(stored)', which cannot be read: \(error)")
        }
    }

    /// Records `address` as the storage's store, in one write.
    static func switchTo(_ address: BlobStoreAddress, in store: any WOPIStore, dataFolder: URL?) async throws {
        try await store.setHostSetting(address.recorded(dataFolder: dataFolder), named: name)
    }

    /// The one line a command opened with another store than the recorded one stops with.
    static func mismatch(recorded: BlobStoreAddress, given: BlobStoreAddress, givenExplicitly: Bool) -> String {
        let what = givenExplicitly ? "\(given)" : "\(given) (the default, blobs/ in --data)"
        return "this storage keeps its bodies in \(recorded), not in \(what): give --blobs '\(recorded)' (or WOPI_BLOBS), "
            + "or move them there with wopi blobs migrate --blobs '\(recorded)' --to '\(given)'"
    }
}
