import CoreMetrics
import Foundation
import Prometheus

/// The host's Prometheus metrics, on a registry of its own (so two hosts in one process, as in
/// tests, never mix counts). `wopi serve --metrics-port` serves ``exposition()`` at `/metrics`.
///
/// Every label value comes from a small closed set (`WOPIOperation` names, status codes, fixed
/// reasons), never from a URL, an id or a token.
public final class HostMetrics: Sendable {
    /// The registry the metrics live in.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    /// Buckets of `wopi_request_duration_seconds`, from 5 ms (a lock) to 60 s (a large upload).
    public static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
    ]

    /// Creates the metrics on a new registry.
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.factory = factory
        // Announce the totals without labels at zero, so a scrape shows them before the first event.
        _ = CoreMetrics.Counter(label: "wopi_lock_conflicts_total", factory: factory)
        _ = CoreMetrics.Counter(label: "wopi_putfile_bytes_total", factory: factory)
        _ = CoreMetrics.Counter(label: "wopi_store_unavailable_total", factory: factory)
        _ = CoreMetrics.Counter(label: "wopi_blob_store_unavailable_total", factory: factory)
        _ = CoreMetrics.Counter(label: "wopi_document_read_errors_total", factory: factory)
    }

    /// A request the document store (the blob store) could not serve: `wopi_blob_store_unavailable_total`.
    public func recordBlobStoreUnavailable() {
        CoreMetrics.Counter(label: "wopi_blob_store_unavailable_total", factory: factory).increment()
    }

    /// A document body cut off while it was being sent, after its status went out: `wopi_document_read_errors_total`.
    public func recordDocumentReadError() {
        CoreMetrics.Counter(label: "wopi_document_read_errors_total", factory: factory).increment()
    }

    /// One request answered: `wopi_requests_total{operation,status}` and `wopi_request_duration_seconds{operation}`.
    public func recordRequest(operation: String, status: Int, duration: Duration) {
        CoreMetrics.Counter(label: "wopi_requests_total", dimensions: [("operation", operation), ("status", String(status))], factory: factory).increment()
        CoreMetrics.Timer(label: "wopi_request_duration_seconds", dimensions: [("operation", operation)], factory: factory).recordInterval(duration)
    }

    /// A lock refused a change: `wopi_lock_conflicts_total`.
    public func recordLockConflict() {
        CoreMetrics.Counter(label: "wopi_lock_conflicts_total", factory: factory).increment()
    }

    /// A PutFile stored `bytes`: `wopi_putfile_bytes_total`.
    public func recordPutFileBytes(_ bytes: Int64) {
        CoreMetrics.Counter(label: "wopi_putfile_bytes_total", factory: factory).increment(by: Int(clamping: bytes))
    }

    /// A request answered 503 because the metadata store was unavailable (``StoreUnavailable``):
    /// `wopi_store_unavailable_total`.
    public func recordStoreUnavailable() {
        CoreMetrics.Counter(label: "wopi_store_unavailable_total", factory: factory).increment()
    }

    /// A document body could not be written (a full disk, a read-only or failing volume):
    /// `wopi_document_write_errors_total{reason}` with `no_space`, `quota`, `read_only`, `io`, `permission` or `other`.
    public func recordDocumentWriteError(reason: String) {
        CoreMetrics.Counter(label: "wopi_document_write_errors_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// A password sign-in: `wopi_signins_total{outcome}` with `ok`, `failed` or `throttled`.
    public func recordSignIn(outcome: String) {
        CoreMetrics.Counter(label: "wopi_signins_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// An access token refused: `wopi_tokens_refused_total{reason}`.
    public func recordTokenRefused(reason: String) {
        CoreMetrics.Counter(label: "wopi_tokens_refused_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// A WOPI proof refused: `wopi_proofs_refused_total{reason}`.
    public func recordProofRefused(reason: String) {
        CoreMetrics.Counter(label: "wopi_proofs_refused_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// Everything in the Prometheus text exposition format (version 0.0.4).
    public func exposition() -> String {
        registry.emitToString()
    }
}

private extension CoreMetrics.Timer {
    func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
