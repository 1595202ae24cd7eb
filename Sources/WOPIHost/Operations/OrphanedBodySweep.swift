import Foundation
import Logging

/// Removes document bodies no file refers to and uploads left unfinished (a crash mid-save, an object store
/// that answered too late), once they are older than ``grace``: when the host starts and every
/// ``AuditTrail/pruneInterval`` after, the cadence of the trash and the audit trail.
///
/// With several hosts on one store, a body another host is writing exists before its record: ``grace``, judged
/// by the time in its key (`BlobKey/createdAt`), keeps the sweep away from it.
public struct OrphanedBodySweep: Sendable {
    /// Whose records say which bodies are in use.
    public let store: any WOPIStore
    /// Where the bodies are.
    public let blobs: any BlobStore
    /// How old an unreferenced body or an unfinished upload must be before it goes.
    public let grace: TimeInterval
    private let logger: Logger

    /// A sweep of `blobs` against `store`'s records.
    public init(store: any WOPIStore, blobs: any BlobStore, grace: TimeInterval = 3600, logger: Logger = Logger(label: "wopi.blobs")) {
        self.store = store
        self.blobs = blobs
        self.grace = grace
        self.logger = logger
    }

    /// Sweeps once; returns how many bodies and uploads went (0 when the sweep failed, which is logged).
    @discardableResult
    public func sweep() async -> Int {
        do {
            let removed = try await blobs.collectGarbage(referenced: try await store.referencedBlobs(), grace: grace)
            if removed > 0 { logger.notice("removed \(removed) orphaned body or upload(s)") }
            return removed
        } catch {
            logger.warning("could not sweep orphaned bodies", metadata: ["error": "\(error)"])
            return 0
        }
    }

    /// Sweeps every ``AuditTrail/pruneInterval``, the first time one interval from now, until the task is cancelled.
    public func run() async {
        while (try? await Task.sleep(for: AuditTrail.pruneInterval)) != nil {
            await sweep()
        }
    }
}
