import Foundation
import Logging
import WOPICore

/// Purges trashed items older than the retention (`wopi serve --trash-days`, default
/// `TrashRules.defaultRetentionDays`) with their bodies: when the host starts and every
/// ``AuditTrail/pruneInterval`` after, the cadence of the audit trail's own pruning.
///
/// Each purge is audited (`trash.purged`, `reason` `expired`). Several hosts sharing one store may
/// purge at once: each item is removed by exactly one of them, in the store's transaction.
public struct TrashRetention: Sendable {
    /// Where the trash is kept.
    public let store: any WOPIStore
    /// Where the purged items' bodies are deleted.
    public let blobs: any BlobStore
    /// Days an item stays in the trash.
    public let days: Int
    private let monitor: HostMonitor
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// A retention of `days` over `store` and `blobs`, auditing to `monitor`.
    public init(store: any WOPIStore, blobs: any BlobStore, days: Int = TrashRules.defaultRetentionDays, monitor: HostMonitor = HostMonitor(),
                logger: Logger = Logger(label: "wopi.trash"), now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.blobs = blobs
        self.days = days
        self.monitor = monitor
        self.logger = logger
        self.now = now
    }

    /// Removes the items trashed more than ``days`` ago and their bodies, once; returns them.
    @discardableResult
    public func purgeExpired() async -> [TrashedItem] {
        let time = now()
        do {
            let purge = try await store.emptyTrash(ownedBy: nil, trashedBefore: TrashRules.purgeCutoff(now: time, retentionDays: days))
            for blob in purge.blobs { try? await blobs.delete(blob) }
            for item in purge.removed {
                let owner = try? await store.user(id: item.ownerID)?.name
                monitor.record(.trashPurged, user: owner, file: item.id.rawValue,
                               details: ["kind": item.kind.rawValue, "name": item.name, "reason": "expired"], now: time)
            }
            if !purge.removed.isEmpty { logger.notice("purged the trash", metadata: ["removed": "\(purge.removed.count)", "days": "\(days)"]) }
            return purge.removed
        } catch {
            logger.warning("could not purge the trash", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Purges now and every ``AuditTrail/pruneInterval`` until the task is cancelled.
    public func run() async {
        repeat {
            await purgeExpired()
        } while (try? await Task.sleep(for: AuditTrail.pruneInterval)) != nil
    }
}
