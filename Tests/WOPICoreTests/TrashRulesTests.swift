import Foundation
import Testing
import WOPICore

@Suite struct TrashRulesTests {
    @Test func restoreGoesHomeOnlyWhileTheFolderIsLive() throws {
        let folder = try #require(ResourceID("folder-1"))
        let root = try #require(ResourceID("root-1"))
        #expect(TrashRules.destination(originalFolder: folder, originalFolderIsLive: true, ownerRoot: root) == .originalFolder(folder))
        #expect(TrashRules.destination(originalFolder: folder, originalFolderIsLive: false, ownerRoot: root) == .ownerRoot(root))
        #expect(TrashRules.Destination.ownerRoot(root).folderID == root)
    }

    @Test func itemsExpireAfterTheRetention() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(TrashRules.purgeCutoff(now: now, retentionDays: 30) == now.addingTimeInterval(-30 * 86_400))
        #expect(TrashRules.isExpired(trashedAt: now.addingTimeInterval(-30 * 86_400 - 1), now: now, retentionDays: 30))
        #expect(!TrashRules.isExpired(trashedAt: now.addingTimeInterval(-30 * 86_400), now: now, retentionDays: 30))
        #expect(TrashRules.retentionDays.contains(TrashRules.defaultRetentionDays))
    }
}
