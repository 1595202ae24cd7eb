import Foundation
import Testing
import WOPIHost

/// The promises every `AuditStore` keeps (the audit trail every host of a deployment appends
/// to), as checks you run against your own store from Swift Testing.
///
/// ```swift
/// @Test(arguments: AuditStoreConformance.Check.allCases)
/// func myAuditTrail(_ check: AuditStoreConformance.Check) async throws {
///     try await AuditStoreConformance { try await MyStore.makeEmptyDatabase().auditSubject() }.run(check)
/// }
/// ```
///
/// Each check asks `makeSubject` for a connection to new, empty storage used by nothing else, connects to it
/// again where it needs a second host, closes every connection when it ends, and reports failures as Swift
/// Testing issues.
public struct AuditStoreConformance: ConformanceSuite {
    /// A store under test: a connection to empty storage, and the means to connect to it again.
    public typealias Subject = StoreSubject<any AuditStore>

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Events appended from two hosts and out of order list by time, page by page and filtered, exactly as
        /// appended; retention removes only what is older than its cutoff.
        case eventsComeBackInTimeOrderPageByPageAndFiltered

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    private let makeSubject: @Sendable () async throws -> Subject

    /// Checks over the stores `makeSubject` returns: each call, new and empty storage.
    public init(makeSubject: @escaping @Sendable () async throws -> Subject) {
        self.makeSubject = makeSubject
    }

    /// Runs one check.
    public func run(_ check: Check) async throws {
        try await makeSubject().closing { subject in
            switch check {
            case .eventsComeBackInTimeOrderPageByPageAndFiltered: try await eventsComeBackInTimeOrder(subject)
            }
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_800_000_000.125)

    /// `count` events, one a second from `start`, cycling through users, files and kinds.
    private static func events(_ count: Int, from offset: Int = 0) -> [AuditEvent] {
        let kinds: [AuditEvent.Kind] = [.lockTaken, .fileSaved, .shareAdded]
        return (offset..<offset + count).map { index in
            AuditEvent(kinds[index % 3], time: start.addingTimeInterval(Double(index)), user: ["Alice", "bob", nil][index % 3],
                       file: index % 2 == 0 ? "file\(index % 4)" : nil, requestID: index % 5 == 0 ? nil : "req-\(index)",
                       details: ["index": String(index), "note": "ünïcode \"quoted\" / slash"])
        }
    }

    private func eventsComeBackInTimeOrder(_ subject: Subject) async throws {
        let start = Self.start
        let store = subject.store
        let all = Self.events(1_200)
        // Appended out of time order and from a second host: listing is by time, not by arrival.
        try await store.appendAuditEvents(Array(all[600...]))
        try await subject.withSecondHost { other in
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
