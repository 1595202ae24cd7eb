import Foundation
import WOPIHost
import GRDB

/// The audit trail and failed sign-ins on SQLite.
extension SQLiteStore: AuditStore, SignInFailureStore {
    /// Appends events, in order, in one atomic step.
    public func appendAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await pool.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO audit_events (recorded_at, event, user_name, file_id, request_id, details) VALUES (?, ?, ?, ?, ?, ?)
                """)
            for event in events {
                try insert.execute(arguments: [event.time.timeIntervalSince1970, event.kind.rawValue, event.user, event.file, event.requestID,
                                               event.detailsJSON])
            }
        }
    }

    /// Up to `limit` events matching `filter`, ordered by time and then by the order they were
    /// appended, starting after `cursor` (from the start when `nil`). Each page is one read.
    public func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) async throws -> [AuditEntry] {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let since = filter.since {
            conditions.append("recorded_at >= ?")
            arguments += [since.timeIntervalSince1970]
        }
        if let user = filter.user {
            conditions.append("user_name = ? COLLATE NOCASE")
            arguments += [user]
        }
        if let file = filter.file {
            conditions.append("file_id = ?")
            arguments += [file]
        }
        if let event = filter.event {
            conditions.append("event = ?")
            arguments += [event.rawValue]
        }
        if let cursor {
            conditions.append("(recorded_at, sequence) > (?, ?)")
            arguments += [cursor.time, cursor.sequence]
        }
        arguments += [max(0, limit)]
        let sql = """
            SELECT sequence, recorded_at, event, user_name, file_id, request_id, details FROM audit_events
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY recorded_at, sequence LIMIT ?
            """
        let bound = arguments
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map { row in
                let time: Double = row["recorded_at"]
                return AuditEntry(cursor: AuditCursor(time: time, sequence: row["sequence"]),
                                  event: AuditEvent(stored: row["event"], time: time, user: row["user_name"], file: row["file_id"],
                                                    requestID: row["request_id"], detailsJSON: row["details"]))
            }
        }
    }

    /// Deletes the events recorded before `cutoff`; returns how many went.
    @discardableResult
    public func removeAuditEvents(before cutoff: Date) async throws -> Int {
        // In slices, each its own transaction, so hosts appending are never held up for long.
        var removed = 0
        while true {
            let slice = try await pool.write { db in
                try db.execute(sql: """
                    DELETE FROM audit_events WHERE sequence IN
                        (SELECT sequence FROM audit_events WHERE recorded_at < ? ORDER BY recorded_at LIMIT 10000)
                    """, arguments: [cutoff.timeIntervalSince1970])
                return db.changesCount
            }
            removed += slice
            if slice == 0 { return removed }
        }
    }

    /// How many failures `key` has after `since`, and when the oldest of them happened.
    public func signInFailures(key: String, after since: Date) async throws -> (count: Int, oldest: Date?) {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*) AS failures, min(failed_at) AS oldest FROM signin_failures WHERE key = ? AND failed_at > ?",
                                       arguments: [key, since.timeIntervalSince1970])
            let count: Int = row?["failures"] ?? 0
            let oldest: Double? = row?["oldest"]
            return (count: count, oldest: oldest.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// Counts one failure of `key` at `time`, and forgets every failure (of any key) at or before
    /// `expired`, so the table holds no more than the failures of one window.
    public func recordSignInFailure(key: String, at time: Date, forgettingThrough expired: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM signin_failures WHERE failed_at <= ?", arguments: [expired.timeIntervalSince1970])
            try db.execute(sql: "INSERT INTO signin_failures (key, failed_at) VALUES (?, ?)", arguments: [key, time.timeIntervalSince1970])
        }
    }

    /// Forgets the failures of `key` (after a successful sign-in).
    public func clearSignInFailures(key: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM signin_failures WHERE key = ?", arguments: [key])
        }
    }
}
