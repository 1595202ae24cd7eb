import Foundation
import WOPICore
import WOPIHost

/// `AuditStore` and `SignInFailureStore` (tables `audit_events` and `signin_failures`): every host of a
/// deployment appends to and counts in the same tables.
extension SQLStore {
    /// Appends events, in order, in one atomic step: one multi-row `INSERT`.
    public func appendAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await write("""
            INSERT INTO audit_events (recorded_at, event, user_name, file_id, request_id, details)
            VALUES \(SQLStatement(joining: events.map(Self.auditRow), separator: ", "))
            """)
    }

    private static func auditRow(_ event: AuditEvent) -> SQLStatement {
        "(\(event.time), \(event.kind.rawValue), \(event.user), \(event.file), \(event.requestID), \(event.detailsJSON))"
    }

    /// Up to `limit` events matching `filter`, ordered by time and then by the order they were
    /// appended, starting after `cursor` (from the start when `nil`). Each page is one read.
    public func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) async throws -> [AuditEntry] {
        var conditions: [SQLStatement] = []
        if let since = filter.since { conditions.append("recorded_at >= \(since)") }
        if let user = filter.user { conditions.append(dialect.sameName("user_name", user)) }
        if let file = filter.file { conditions.append("file_id = \(file)") }
        if let event = filter.event { conditions.append("event = \(event.rawValue)") }
        if let cursor { conditions.append("(recorded_at, sequence) > (\(cursor.time), \(cursor.sequence))") }
        let matching: SQLStatement = conditions.isEmpty ? "" : "WHERE \(SQLStatement(joining: conditions, separator: " AND "))"
        return try await rows("""
            SELECT sequence, recorded_at, event, user_name, file_id, request_id, details FROM audit_events
            \(matching) ORDER BY recorded_at, sequence LIMIT \(max(0, limit))
            """).map { row in
            let time = try row.real(1)
            return AuditEntry(cursor: AuditCursor(time: time, sequence: try row.integer(0)),
                              event: AuditEvent(stored: try row.text(2), time: time, user: try row.optionalText(3), file: try row.optionalText(4),
                                                requestID: try row.optionalText(5), detailsJSON: try row.text(6)))
        }
    }

    /// Deletes the events recorded before `cutoff`; returns how many went.
    @discardableResult
    public func removeAuditEvents(before cutoff: Date) async throws -> Int {
        // In slices, each its own transaction, so hosts appending are never held up for long.
        var removed = 0
        while true {
            let slice = try await write("""
                DELETE FROM audit_events WHERE sequence IN
                    (SELECT sequence FROM audit_events WHERE recorded_at < \(cutoff) ORDER BY recorded_at LIMIT 10000)
                RETURNING sequence
                """).count
            removed += slice
            if slice == 0 { return removed }
        }
    }

    /// How many failures `key` has after `since`, and when the oldest of them happened.
    public func signInFailures(key: String, after since: Date) async throws -> (count: Int, oldest: Date?) {
        let row = try await first("""
            SELECT CAST(count(*) AS BIGINT), min(failed_at) FROM signin_failures WHERE key = \(key) AND failed_at > \(since)
            """)
        return (Int(try row?.integer(0) ?? 0), try row?.optionalDate(1))
    }

    /// Counts one failure of `key` at `time`, and forgets every failure (of any key) at or before
    /// `expired`, so the table holds no more than the failures of one window.
    public func recordSignInFailure(key: String, at time: Date, forgettingThrough expired: Date) async throws {
        try await transaction { session in
            try await session.execute("DELETE FROM signin_failures WHERE failed_at <= \(expired)")
            try await session.execute("INSERT INTO signin_failures (key, failed_at) VALUES (\(key), \(time))")
        }
    }

    /// Forgets the failures of `key` (after a successful sign-in).
    public func clearSignInFailures(key: String) async throws {
        try await write("DELETE FROM signin_failures WHERE key = \(key)")
    }
}
