import Foundation
import WOPIHost
import PostgresNIO

/// The audit trail and failed sign-ins on PostgreSQL: every host of a deployment appends to and
/// counts in the same tables.
extension PostgresStore: AuditStore, SignInFailureStore {
    /// Appends events, in order, in one atomic step.
    public func appendAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        // One multi-row INSERT: one statement, one round trip, all or nothing.
        var binds = PostgresBindings(capacity: events.count * 6)
        var rows: [String] = []
        rows.reserveCapacity(events.count)
        for event in events {
            let first = binds.count + 1
            rows.append("(" + (first..<first + 6).map { "$\($0)" }.joined(separator: ", ") + ")")
            binds.append(event.time.timeIntervalSince1970)
            binds.append(event.kind.rawValue)
            binds.append(event.user)
            binds.append(event.file)
            binds.append(event.requestID)
            binds.append(event.detailsJSON)
        }
        try await client.query(PostgresQuery(unsafeSQL: """
            INSERT INTO audit_events (recorded_at, event, user_name, file_id, request_id, details) VALUES \(rows.joined(separator: ", "))
            """, binds: binds), logger: logger)
    }

    /// Up to `limit` events matching `filter`, ordered by time and then by the order they were
    /// appended, starting after `cursor` (from the start when `nil`). Each page is one read.
    public func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) async throws -> [AuditEntry] {
        var conditions: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let since = filter.since { conditions.append("recorded_at >= \(bind(since.timeIntervalSince1970))") }
        if let user = filter.user { conditions.append("wopi_fold(user_name) = wopi_fold(\(bind(user)))") }
        if let file = filter.file { conditions.append("file_id = \(bind(file))") }
        if let event = filter.event { conditions.append("event = \(bind(event.rawValue))") }
        if let cursor { conditions.append("(recorded_at, sequence) > (\(bind(cursor.time)), \(bind(cursor.sequence)))") }
        let sql = """
            SELECT sequence, recorded_at, event, user_name, file_id, request_id, details FROM audit_events
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY recorded_at, sequence LIMIT \(bind(max(0, limit)))
            """
        return try await all(PostgresQuery(unsafeSQL: sql, binds: binds)) { row in
            let (sequence, time, event, user, file, requestID, details) = try row.decode((Int64, Double, String, String?, String?, String?, String).self)
            return AuditEntry(cursor: AuditCursor(time: time, sequence: sequence),
                              event: AuditEvent(stored: event, time: time, user: user, file: file, requestID: requestID, detailsJSON: details))
        }
    }

    /// Deletes the events recorded before `cutoff`; returns how many went.
    @discardableResult
    public func removeAuditEvents(before cutoff: Date) async throws -> Int {
        // In slices, each its own statement, so a long trail never holds one huge transaction.
        var removed = 0
        while true {
            let slice = try await first("""
                WITH gone AS (
                    DELETE FROM audit_events WHERE sequence IN
                        (SELECT sequence FROM audit_events WHERE recorded_at < \(cutoff.timeIntervalSince1970) ORDER BY recorded_at LIMIT 10000)
                    RETURNING 1)
                SELECT count(*) FROM gone
                """) { try $0.decode(Int64.self) } ?? 0
            removed += Int(slice)
            if slice == 0 { return removed }
        }
    }

    /// How many failures `key` has after `since`, and when the oldest of them happened.
    public func signInFailures(key: String, after since: Date) async throws -> (count: Int, oldest: Date?) {
        let row = try await first("""
            SELECT count(*), min(failed_at) FROM signin_failures WHERE key = \(key) AND failed_at > \(since.timeIntervalSince1970)
            """) { try $0.decode((Int64, Double?).self) }
        return (Int(row?.0 ?? 0), row?.1.map(Date.init(timeIntervalSince1970:)))
    }

    /// Counts one failure of `key` at `time`, and forgets every failure (of any key) at or before
    /// `expired`, so the table holds no more than the failures of one window.
    public func recordSignInFailure(key: String, at time: Date, forgettingThrough expired: Date) async throws {
        // One statement: the insert and the clean-up commit together, and no host reads a count to write it back.
        try await client.query("""
            WITH expired AS (DELETE FROM signin_failures WHERE failed_at <= \(expired.timeIntervalSince1970))
            INSERT INTO signin_failures (key, failed_at) VALUES (\(key), \(time.timeIntervalSince1970))
            """, logger: logger)
    }

    /// Forgets the failures of `key` (after a successful sign-in).
    public func clearSignInFailures(key: String) async throws {
        try await client.query("DELETE FROM signin_failures WHERE key = \(key)", logger: logger)
    }
}
