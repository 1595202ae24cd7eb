import Foundation
import GRDB
import PostgresNIO
import Testing
import WOPICore
@testable import WOPIHost
@testable import WOPIStorePostgres
@testable import WOPIStoreSQLite
import WOPIStoreSQL

/// What only this package's SQLite and PostgreSQL stores promise, seen through their own tables: records
/// written by a newer binary are refused or skipped, never misread.
@Suite("Store drivers")
struct StoreDriverTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000.125)

    /// `count` events, one a second from `start`, cycling through users, files and kinds.
    static func events(_ count: Int) -> [AuditEvent] {
        let kinds: [AuditEvent.Kind] = [.lockTaken, .fileSaved, .shareAdded]
        return (0..<count).map { index in
            AuditEvent(kinds[index % 3], time: start.addingTimeInterval(Double(index)), user: ["Alice", "bob", nil][index % 3],
                       file: index % 2 == 0 ? "file\(index % 4)" : nil, requestID: index % 5 == 0 ? nil : "req-\(index)",
                       details: ["index": String(index), "note": "ünïcode \"quoted\" / slash"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSchemaFromANewerBinaryIsRefused(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, storage in
            let user = try await storage.store.createUser(name: "gina", displayName: "Gina", passwordHash: .unusable)
            switch kind {
            case .sqlite:
                let store = try #require(storage.store as? SQLiteStore)
                try await store.pool.write { db in
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
                }
            case .postgresql:
                let store = try #require(storage.store as? PostgresStore)
                try await store.client.query("INSERT INTO wopikit_schema_migrations (version, name) VALUES (99, 'from the future')")
            }
            do {
                let reopened = try await subject.open()
                await reopened.close()
                Issue.record("a database migrated by a newer binary was opened")
            } catch let error as StoreSchemaError {
                #expect(error.description.contains("newer than this wopi binary supports"))
            }
            #expect(try await storage.store.user(id: user.id) == user, "refusing to start changes nothing")
        }
    }

    /// Listings do not queue behind writers: while another caller's transaction is open, holding the write lock
    /// (SQLite's for the whole database), a read answers at once with what was committed before it.
    @Test(arguments: StoreKind.allCases)
    func aReadAnswersWhileATransactionIsOpen(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            switch storage.store {
            case let sqlite as SQLiteStore: try await Self.readWhileWriting(sqlite)
            case let postgres as PostgresStore: try await Self.readWhileWriting(postgres)
            default: Issue.record("not one of this package's stores: \(type(of: storage.store))")
            }
        }
    }

    static func readWhileWriting(_ store: some SQLStore) async throws {
        let user = try await store.createUser(name: "hana", displayName: "Hana", passwordHash: .unusable)
        let (opened, openedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let writer = Task {
            try await store.transaction { session in
                try await session.execute("UPDATE users SET display_name = 'Hana (renamed)' WHERE id = \(user.id)")
                openedSignal.yield()
                // Held until the read below has answered.
                for await _ in release {}
            }
        }
        for await _ in opened { break }
        // A read that waited for the lock would get it only after the release: it loses the race with a minute's
        // timer. Both run on the suite's shared threads, so a busy suite delays them alike.
        let names = await withTaskGroup(of: [String]?.self) { group in
            group.addTask { try? await store.users().map(\.displayName) }
            group.addTask { try? await Task.sleep(for: .seconds(60)); return nil }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        #expect(names == ["Hana"], "the read answered while the transaction was open, with what was committed")
        releaseSignal.finish()
        try await writer.value
        #expect(try await store.users().map(\.displayName) == ["Hana (renamed)"])
    }

    /// A newer binary's event kind is skipped without ending the listing, whatever the page size.
    @Test(arguments: StoreKind.allCases)
    func eventsOfUnknownKindsAreSkippedNotTheEnd(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = try #require(storage.store as? any AuditStore)
            let known = Self.events(4)
            try await store.appendAuditEvents(Array(known[..<2]))
            let time = Self.start.addingTimeInterval(1.5)
            switch storage.store {
            case let sqlite as SQLiteStore:
                try await sqlite.pool.write { db in
                    try db.execute(sql: "INSERT INTO audit_events (recorded_at, event, details) VALUES (?, 'future.kind', '{}')",
                                   arguments: [time.timeIntervalSince1970])
                }
            case let postgres as PostgresStore:
                try await postgres.client.query(
                    "INSERT INTO audit_events (recorded_at, event, details) VALUES (\(time.timeIntervalSince1970), 'future.kind', '{}')",
                    logger: postgres.logger)
            default:
                Issue.record("an unexpected store")
            }
            try await store.appendAuditEvents(Array(known[2...]))
            let page = try await store.auditEvents(matching: AuditFilter(), after: nil, limit: 10)
            #expect(page.count == 5 && page[2].event == nil)
            for pageSize in [1, 2, 3] {
                var listed: [AuditEvent] = []
                try await store.forEachAuditEvent(matching: AuditFilter(), pageSize: pageSize) { listed.append($0) }
                #expect(listed == known, "page size \(pageSize)")
            }
        }
    }
}
