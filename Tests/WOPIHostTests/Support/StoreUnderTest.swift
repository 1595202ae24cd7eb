import Foundation
import TestSupport
import Testing
import WOPICore
@testable import WOPIHost
import WOPIStorePostgres

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

    /// Runs `body` on new, empty storage of `kind`, then closes everything and removes its files.
    static func with<T: Sendable>(_ kind: StoreKind, _ body: (StoreUnderTest, HostStorage) async throws -> T) async throws -> T {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-store-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let databaseURL = kind == .postgresql ? try PostgresDatabaseURL(parsing: try await offPool { try PostgresTestServer.shared().makeDatabase() }) : nil
        let subject = StoreUnderTest(kind: kind, data: data, databaseURL: databaseURL)
        return try await subject.open().closing { try await body(subject, $0) }
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
