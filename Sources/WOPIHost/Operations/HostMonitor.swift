import Foundation

/// Where the host reports what it does: Prometheus metrics and the audit log. Both are optional;
/// the default reports nothing.
public struct HostMonitor: Sendable {
    /// The metrics, when `wopi serve --metrics-port` is given.
    public var metrics: HostMetrics?
    /// The audit log, when `wopi serve --audit-log` is given.
    public var audit: AuditLog?

    /// Creates a monitor.
    public init(metrics: HostMetrics? = nil, audit: AuditLog? = nil) {
        self.metrics = metrics
        self.audit = audit
    }

    /// Records an audit event for the request in progress (its id and user come from ``RequestScope``).
    func record(_ kind: AuditEvent.Kind, user: String? = nil, file: String? = nil, details: [String: String] = [:], now: Date) {
        guard let audit else { return }
        let scope = RequestScope.current
        audit.record(AuditEvent(kind, time: now, user: user ?? scope?.user, file: file ?? scope?.file, requestID: scope?.requestID, details: details))
    }
}
