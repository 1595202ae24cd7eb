import Foundation
import TestSupport
import Testing
import WOPICore
@testable import WOPIHost
import WOPIStorePostgres
import WOPIStoreTesting

/// The store implementations every conformance test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }
}

/// A fresh, empty storage of one kind, and the means to open it again as a second host would.
struct StoreUnderTest: Sendable {
    let kind: StoreKind
    let data: URL
    let databaseURL: PostgresDatabaseURL?

    /// New, empty storage of `kind`: a data folder of its own, and for PostgreSQL a database of its own.
    static func make(_ kind: StoreKind) async throws -> StoreUnderTest {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-store-\(UUID().uuidString)", isDirectory: true)
        let databaseURL = kind == .postgresql ? try await newPostgresDatabase() : nil
        return StoreUnderTest(kind: kind, data: data, databaseURL: databaseURL)
    }

    /// A new, empty database of its own on the test PostgreSQL server.
    static func newPostgresDatabase() async throws -> PostgresDatabaseURL {
        try PostgresDatabaseURL(parsing: try await offPool { try PostgresTestServer.shared().makeDatabase() })
    }

    /// Runs `body` on new, empty storage of `kind`, then closes everything and removes its files.
    static func with<T: Sendable>(_ kind: StoreKind, _ body: (StoreUnderTest, HostStorage) async throws -> T) async throws -> T {
        let subject = try await make(kind)
        defer { try? FileManager.default.removeItem(at: subject.data) }
        return try await subject.open().closing { try await body(subject, $0) }
    }

    /// New, empty storage of `kind` for a conformance suite of WOPIStoreTesting, its store seen as `Store`
    /// (the protocols the suite checks). Closing this first connection also removes the storage's files.
    static func subject<Store: Sendable>(_ kind: StoreKind, as _: Store.Type) async throws -> StoreSubject<Store> {
        let storage = try await make(kind)
        do {
            return try await storage.connect(as: Store.self, removingFilesOnClose: true)
        } catch {
            try? FileManager.default.removeItem(at: storage.data)
            throw error
        }
    }

    /// A connection to this storage as a conformance suite's subject; connecting again opens another.
    private func connect<Store: Sendable>(as _: Store.Type, removingFilesOnClose: Bool) async throws -> StoreSubject<Store> {
        let storage = try await open()
        let store: Store
        do {
            store = try #require(storage.store as? Store, "the \(kind) store is not a \(Store.self)")
        } catch {
            await storage.close()
            throw error
        }
        let data = data
        return StoreSubject(store: store,
                            connectAgain: { try await connect(as: Store.self, removingFilesOnClose: false) },
                            close: {
                                await storage.close()
                                if removingFilesOnClose { try? FileManager.default.removeItem(at: data) }
                            })
    }

    /// Another connection to the same storage: what a second host (or a CLI command beside the host) opens.
    func open() async throws -> HostStorage {
        try await HostStorage.open(data: data, database: databaseURL, blobs: nil)
    }

    /// A second host for the duration of `body`.
    func withSecondHost<T: Sendable>(_ body: (HostStorage) async throws -> T) async throws -> T {
        try await open().closing(after: body)
    }
}

/// A body description without a body: the store records keys, it never reads them.
func fakeBlob(size: Int64 = 10, tag: String = "x") -> StoredBlob {
    StoredBlob(key: .random(), size: size, sha256: Data(tag.utf8).base64EncodedString())
}
