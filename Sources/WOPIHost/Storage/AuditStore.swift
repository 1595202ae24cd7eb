import Foundation

/// The fleet's one audit trail, kept where every host and admin command of a deployment writes:
/// the metadata store (SQLite or PostgreSQL).
///
/// Conform alongside ``WOPIStore`` to keep the trail in your own database; `SQLiteStore` and
/// `PostgresStore` do. Events are read a page at a time (``auditEvents(matching:after:limit:)``),
/// so a trail of any length is listed in constant memory.
public protocol AuditStore: Sendable {
    /// Appends events, in order, in one atomic step.
    func appendAuditEvents(_ events: [AuditEvent]) async throws

    /// Up to `limit` events matching `filter`, ordered by time and then by the order they were
    /// appended, starting after `cursor` (from the start when `nil`). Each page is one read.
    func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) async throws -> [AuditEntry]

    /// Deletes the events recorded before `cutoff`; returns how many went.
    @discardableResult
    func removeAuditEvents(before cutoff: Date) async throws -> Int

    /// Told once, when the host starts stopping, before the trail's last appends: a store that gives a slow database
    /// several chances before it calls it gone gives it one from then on, so that a host whose database has just gone
    /// stops at once rather than after the store's outage check. The default does nothing.
    func hostIsStopping()
}

/// Which audit events to list; every criterion given must hold.
public struct AuditFilter: Sendable, Hashable {
    /// Events at or after this time.
    public var since: Date?
    /// Events of this user (the sign-in name, compared case-insensitively for ASCII, as names are).
    public var user: String?
    /// Events about this file or container id.
    public var file: String?
    /// Events of this kind.
    public var event: AuditEvent.Kind?

    /// Creates a filter; with no arguments it matches every event.
    public init(since: Date? = nil, user: String? = nil, file: String? = nil, event: AuditEvent.Kind? = nil) {
        self.since = since
        self.user = user
        self.file = file
        self.event = event
    }
}

/// Where a page of ``AuditStore/auditEvents(matching:after:limit:)`` ended: the last event's time and sequence number.
public struct AuditCursor: Sendable, Hashable {
    /// The event's time, as stored (seconds since 1970).
    public var time: Double
    /// The store's sequence number of the event, unique and increasing in the order events were appended.
    public var sequence: Int64

    /// Creates a cursor.
    public init(time: Double, sequence: Int64) {
        self.time = time
        self.sequence = sequence
    }
}

/// One stored audit event with its place in the trail.
public struct AuditEntry: Sendable, Hashable {
    /// Where the next page starts.
    public var cursor: AuditCursor
    /// The event; `nil` when its kind is one this binary does not know (appended by a newer one).
    public var event: AuditEvent?

    /// Creates an entry.
    public init(cursor: AuditCursor, event: AuditEvent?) {
        self.cursor = cursor
        self.event = event
    }
}

extension AuditStore {
    /// Does nothing: the store answers as quickly while the host stops as before.
    public func hostIsStopping() {}

    /// Calls `body` with every event matching `filter`, in trail order, reading `pageSize` at a time;
    /// events of kinds this binary does not know are skipped.
    public func forEachAuditEvent(matching filter: AuditFilter, pageSize: Int = 500, _ body: (AuditEvent) async throws -> Void) async throws {
        var cursor: AuditCursor?
        while true {
            let page = try await auditEvents(matching: filter, after: cursor, limit: pageSize)
            for case let event? in page.map(\.event) { try await body(event) }
            guard page.count == pageSize, let last = page.last else { return }
            cursor = last.cursor
        }
    }
}

extension AuditEvent {
    /// The details as stored: one JSON object of strings, keys sorted.
    package var detailsJSON: String {
        let data = (try? JSONSerialization.data(withJSONObject: details, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// An event read back from a store; `nil` for a kind this binary does not know (written by a newer one).
    package init?(stored kind: String, time: Double, user: String?, file: String?, requestID: String?, detailsJSON: String) {
        guard let kind = Kind(rawValue: kind) else { return nil }
        let details = (try? JSONSerialization.jsonObject(with: Data(detailsJSON.utf8))) as? [String: String] ?? [:]
        self.init(kind, time: Date(timeIntervalSince1970: time), user: user, file: file, requestID: requestID, details: details)
    }
}
