import Foundation
import GRDB
import PostgresNIO
import Testing
import WOPICore
@testable import WOPIHost
@testable import WOPIStorePostgres
@testable import WOPIStoreSQLite

/// A row edited behind the store's back is reported as damage, never read as a placeholder.
@Suite("Damaged rows")
struct DamagedRowTests {
    /// Writes `value` into `files.column` of `file`, as a hand edit or a broken restore would.
    static func damage(_ storage: HostStorage, _ file: ResourceID, column: String, value: String) async throws {
        if let store = storage.store as? SQLiteStore {
            try await store.pool.write { db in try db.execute(sql: "UPDATE files SET \(column) = ? WHERE id = ?", arguments: [value, file.rawValue]) }
        } else {
            let store = try #require(storage.store as? PostgresStore)
            try await store.client.query("UPDATE files SET \(unescaped: column) = \(value) WHERE id = \(file.rawValue)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aBodyKeyThatDoesNotParseIsReportedWithItsColumn(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "dana", displayName: "Dana", passwordHash: .unusable)
            let file = try await store.createFile(named: "a.docx", in: user.rootContainerID, blob: fakeBlob(), replacing: false, now: Date()).file
            try await Self.damage(storage, file.id, column: "blob_key", value: "../../etc/passwd")
            let error = await #expect(throws: StoredValueError.self) { try await store.file(id: file.id) }
            #expect(error?.column.hasSuffix("blob_key") == true)
            #expect(error?.value == "../../etc/passwd")
            await #expect(throws: StoredValueError.self, "a listing with the row fails too") {
                try await store.children(of: user.rootContainerID)
            }
            await #expect(throws: StoredValueError.self, "so does the per-request lookup") {
                try await store.fileAccess(file.id, by: user.id)
            }
        }
    }

    /// SQLite keeps any value in any column: a number column holding text is damage, with its column named, on
    /// every path that reads the row (the per-request lookup, the listing, the shared decoders), never a 0.
    @Test("SQLite: a number column holding text is reported by every read, not read as 0")
    func aNumberHoldingTextIsReported() async throws {
        try await StoreUnderTest.with(.sqlite) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "dana", displayName: "Dana", passwordHash: .unusable)
            let file = try await store.createFile(named: "a.docx", in: user.rootContainerID, blob: fakeBlob(), replacing: false, now: Date()).file
            try await Self.damage(storage, file.id, column: "size", value: "twelve")
            let lookup = await #expect(throws: StoredValueError.self) { try await store.fileAccess(file.id, by: user.id) }
            #expect(lookup?.column == "size")
            #expect(lookup?.value == "twelve")
            await #expect(throws: StoredValueError.self) { try await store.childFiles(of: user.rootContainerID, after: nil, limit: 10) }
            await #expect(throws: StoredValueError.self) { try await store.file(id: file.id) }
            await #expect(throws: StoredValueError.self) { try await store.versions(of: file.id) }
        }
    }

    @Test("CheckFileInfo on a damaged row answers 500, and the file is not served as another")
    func overHTTP() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            try await Self.damage(host.folder, doc.file.id, column: "blob_key", value: "not a key")
            expectStatus(try await host.checkFileInfo(doc.id, token: doc.token), 500)
            expectStatus(try await host.getFile(doc.id, token: doc.token), 500)
        }
    }
}
