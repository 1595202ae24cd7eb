import Foundation
import GRDB
import PostgresNIO
import Testing
import WOPICore
@testable import WOPIHost
@testable import WOPIStoreSQLite
@testable import WOPIStorePostgres

/// The audit trail and the failed sign-in counts, on SQLite and a real PostgreSQL server: what every
/// host of a deployment appends to and counts in.
@Suite("Store conformance: audit trail and sign-in failures")
struct AuditStoreConformanceTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000.125)

    func trail(_ storage: HostStorage) throws -> any AuditStore & SignInFailureStore {
        try #require(storage.store as? any AuditStore & SignInFailureStore)
    }

    /// `count` events, one a second from `start`, cycling through users, files and kinds.
    func events(_ count: Int, from offset: Int = 0) -> [AuditEvent] {
        let kinds: [AuditEvent.Kind] = [.lockTaken, .fileSaved, .shareAdded]
        return (offset..<offset + count).map { index in
            AuditEvent(kinds[index % 3], time: start.addingTimeInterval(Double(index)), user: ["Alice", "bob", nil][index % 3],
                       file: index % 2 == 0 ? "file\(index % 4)" : nil, requestID: index % 5 == 0 ? nil : "req-\(index)",
                       details: ["index": String(index), "note": "ünïcode \"quoted\" / slash"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func eventsComeBackInTimeOrderPageByPageAndFiltered(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, storage in
            let store = try trail(storage)
            let all = events(1_200)
            // Appended out of time order and from a second host: listing is by time, not by arrival.
            try await store.appendAuditEvents(Array(all[600...]))
            try await subject.withSecondHost { second in
                let other = try #require(second.store as? any AuditStore)
                try await other.appendAuditEvents(Array(all[..<600]))
            }
            try await store.appendAuditEvents([])

            var listed: [AuditEvent] = []
            var cursor: AuditCursor?
            var pages = 0
            repeat {
                let page = try await store.auditEvents(matching: AuditFilter(), after: cursor, limit: 500)
                #expect(page.count <= 500)
                listed += page.compactMap(\.event)
                cursor = page.last?.cursor
                pages += 1
                if page.count < 500 { break }
            } while true
            #expect(pages == 3)
            #expect(listed == all, "every event, exactly as appended, oldest first")

            var streamed: [AuditEvent] = []
            try await store.forEachAuditEvent(matching: AuditFilter(), pageSize: 7) { streamed.append($0) }
            #expect(streamed == all)

            func expectFilter(_ filter: AuditFilter, _ expected: (AuditEvent) -> Bool) async throws {
                var found: [AuditEvent] = []
                try await store.forEachAuditEvent(matching: filter, pageSize: 100) { found.append($0) }
                #expect(found == all.filter(expected), "\(filter)")
                #expect(!found.isEmpty)
            }
            try await expectFilter(AuditFilter(user: "ALICE")) { $0.user == "Alice" }
            try await expectFilter(AuditFilter(file: "file2")) { $0.file == "file2" }
            try await expectFilter(AuditFilter(event: .shareAdded)) { $0.kind == .shareAdded }
            try await expectFilter(AuditFilter(since: start.addingTimeInterval(1_000))) { $0.time >= start.addingTimeInterval(1_000) }
            try await expectFilter(AuditFilter(since: start.addingTimeInterval(100), user: "alice", file: "file0", event: .lockTaken)) {
                $0.time >= start.addingTimeInterval(100) && $0.user == "Alice" && $0.file == "file0" && $0.kind == .lockTaken
            }
            #expect(try await store.auditEvents(matching: AuditFilter(user: "nobody"), after: nil, limit: 10).isEmpty)

            // Retention: only what is older than the cutoff goes.
            #expect(try await store.removeAuditEvents(before: start.addingTimeInterval(1_000)) == 1_000)
            #expect(try await store.removeAuditEvents(before: start.addingTimeInterval(1_000)) == 0)
            var kept: [AuditEvent] = []
            try await store.forEachAuditEvent(matching: AuditFilter()) { kept.append($0) }
            #expect(kept == Array(all[1_000...]))
        }
    }

    /// A newer binary's event kind is skipped without ending the listing, whatever the page size.
    @Test(arguments: StoreKind.allCases)
    func eventsOfUnknownKindsAreSkippedNotTheEnd(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = try trail(storage)
            let known = events(4)
            try await store.appendAuditEvents(Array(known[..<2]))
            let time = start.addingTimeInterval(1.5)
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

    @Test(arguments: StoreKind.allCases)
    func failuresFromTwoHostsAreAllCountedAndExpiredOnesForgotten(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, storage in
            let store = try trail(storage)
            let window: TimeInterval = 900
            try await subject.withSecondHost { second in
                let other = try #require(second.store as? any SignInFailureStore)
                // 40 failures of one key at once, half on each host: none is lost.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<40 {
                        let target: any SignInFailureStore = index % 2 == 0 ? store : other
                        let time = start.addingTimeInterval(Double(index))
                        group.addTask { try await target.recordSignInFailure(key: "k1", at: time, forgettingThrough: time.addingTimeInterval(-window)) }
                    }
                    try await group.waitForAll()
                }
                let seen = try await other.signInFailures(key: "k1", after: start.addingTimeInterval(-window))
                #expect(seen.count == 40)
                #expect(seen.oldest == start)
            }
            // The window: only failures after `since` count, and the oldest of those is reported.
            let later = try await store.signInFailures(key: "k1", after: start.addingTimeInterval(29.5))
            #expect(later.count == 10 && later.oldest == start.addingTimeInterval(30))
            #expect(try await store.signInFailures(key: "other", after: .distantPast) == (0, nil))

            // A failure much later forgets every expired failure, of any key.
            try await store.recordSignInFailure(key: "k2", at: start.addingTimeInterval(10), forgettingThrough: start.addingTimeInterval(10 - window))
            let late = start.addingTimeInterval(2 * window)
            try await store.recordSignInFailure(key: "k3", at: late, forgettingThrough: late.addingTimeInterval(-window))
            #expect(try await store.signInFailures(key: "k1", after: .distantPast).count == 0)
            #expect(try await store.signInFailures(key: "k2", after: .distantPast).count == 0)
            #expect(try await store.signInFailures(key: "k3", after: .distantPast) == (1, late))

            // Clearing one key leaves the others.
            try await store.recordSignInFailure(key: "k4", at: late, forgettingThrough: late.addingTimeInterval(-window))
            try await store.clearSignInFailures(key: "k3")
            #expect(try await store.signInFailures(key: "k3", after: .distantPast).count == 0)
            #expect(try await store.signInFailures(key: "k4", after: .distantPast).count == 1)
        }
    }
}
