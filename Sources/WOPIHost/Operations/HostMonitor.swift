import Foundation

/// Where the host reports what it does: Prometheus metrics, the audit trail in the store, and the
/// audit log file. All are optional; the default reports nothing.
public struct HostMonitor: Sendable {
    /// The metrics, when `wopi serve --metrics-port` is given.
    public var metrics: HostMetrics?
    /// The audit log file, when `wopi serve --audit-log` is given: an export of the trail.
    public var audit: AuditLog?
    /// The audit trail in the store, shared by every host and admin command (`wopi serve` always has one).
    public var trail: AuditTrail?

    /// Creates a monitor.
    public init(metrics: HostMetrics? = nil, audit: AuditLog? = nil, trail: AuditTrail? = nil) {
        self.metrics = metrics
        self.audit = audit
        self.trail = trail
    }

    /// Records an audit event for the request in progress (its id and user come from ``RequestScope``).
    func record(_ kind: AuditEvent.Kind, user: String? = nil, file: String? = nil, details: [String: String] = [:], now: Date) {
        guard audit != nil || trail != nil else { return }
        let scope = RequestScope.current
        let event = AuditEvent(kind, time: now, user: user ?? scope?.user, file: file ?? scope?.file, requestID: scope?.requestID, details: details)
        audit?.record(event)
        trail?.record(event)
    }
}
