import Foundation
import WOPICore
import WOPIHost
import WOPIStoreTesting

/// A stand-in store for the conformance suites: a real store with at most one ``StoreFault`` planted.
struct FaultyStore: WOPIStore, AuthorizationStore, AuditStore, SignInFailureStore, WebSessionStore {
    let base: CompleteStore
    let fault: StoreFault?

    /// New, empty SQLite storage behind a faulty store; connecting again plants the same fault.
    static func subject(_ fault: StoreFault?) async throws -> StoreSubject<CompleteStore> {
        try await StoreUnderTest.subject(.sqlite, as: CompleteStore.self).map { FaultyStore(base: $0, fault: fault) }
    }

    // Users
    func createUser(name: String, displayName: String, passwordHash: PasswordHash) async throws -> UserRecord {
        try await base.createUser(name: name, displayName: displayName, passwordHash: passwordHash)
    }
    func user(id: ResourceID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(named name: String) async throws -> UserRecord? {
        let user = try await base.user(named: name)
        return fault == .userNamesCompareCase && user?.name != name ? nil : user
    }
    func users() async throws -> [UserRecord] { try await base.users() }
    func removeUser(id: ResourceID) async throws -> [BlobKey] { try await base.removeUser(id: id) }
    func setUserInfo(_ info: String, for userID: ResourceID) async throws { try await base.setUserInfo(info, for: userID) }
    func setPasswordHash(_ hash: PasswordHash, for userID: ResourceID) async throws -> Int { try await base.setPasswordHash(hash, for: userID) }

    // Containers and files
    func container(id: ResourceID) async throws -> ContainerRecord? { try await base.container(id: id) }
    func containerPath(to id: ResourceID) async throws -> [ContainerRecord] { try await base.containerPath(to: id) }
    func children(of id: ResourceID) async throws -> (containers: [ContainerRecord], files: [FileRecord]) { try await base.children(of: id) }
    func createContainer(named name: String, in parentID: ResourceID) async throws -> ContainerRecord {
        try await base.createContainer(named: name, in: parentID)
    }
    func renameContainer(_ id: ResourceID, to name: String) async throws -> ContainerRecord { try await base.renameContainer(id, to: name) }
    func deleteContainer(_ id: ResourceID) async throws { try await base.deleteContainer(id) }
    func file(id: ResourceID) async throws -> FileRecord? { try await base.file(id: id) }
    func file(named name: String, in containerID: ResourceID) async throws -> FileRecord? { try await base.file(named: name, in: containerID) }
    func createFile(named name: String, in containerID: ResourceID, blob: StoredBlob, replacing: Bool, now: Date) async throws
        -> (file: FileRecord, replacedBlob: BlobKey?) {
        try await base.createFile(named: name, in: containerID, blob: blob, replacing: replacing, now: now)
    }
    func renameFile(_ id: ResourceID, to name: String, lock: WOPILock?, now: Date) async throws -> FileRecord {
        try await base.renameFile(id, to: name, lock: lock, now: now)
    }
    func deleteFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> BlobKey { try await base.deleteFile(id, lock: lock, now: now) }
    func updateLock(_ id: ResourceID, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        let result = try await base.updateLock(id, request: request, now: now)
        if fault == .everyLockRequestIsGranted, case .conflict = result.decision, case .lock(let lock) = request {
            return (.granted(newState: LockState(lock: lock, expiresAt: now.addingTimeInterval(LockRules.lifetime))), result.file)
        }
        return result
    }
    func updateLock(_ file: FileRecord, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        guard fault == .staleLockCopiesAreTrusted else { return try await base.updateLock(file, request: request, now: now) }
        let decision = LockRules.evaluate(request, current: file.lock, now: now)
        guard case .granted(let newState) = decision else { return (decision, file) }
        // Written over whatever lock is stored.
        _ = try await base.breakLock(file.id, now: now)
        guard let newState else { return (decision, try await base.file(id: file.id) ?? file) }
        return (decision, try await base.updateLock(file.id, request: .lock(newState.lock), now: now).file)
    }
    func referencedBlobs() async throws -> Set<BlobKey> { try await base.referencedBlobs() }
    func referencedBodies() async throws -> [StoredBlob] { try await base.referencedBodies() }

    // Versions, lock administration, readiness
    func saveContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, savedBy: ResourceID?, saveKinds: SaveKinds?,
                     seenModifiedTime: String?, keepVersions: Int, now: Date) async throws -> ContentChange {
        var change = try await base.saveContent(id, with: blob, lock: lock, savedBy: savedBy, saveKinds: saveKinds,
                                                seenModifiedTime: seenModifiedTime, keepVersions: keepVersions, now: now)
        if fault == .savesDropNoBodies { change.droppedBlobs = [] }
        return change
    }
    func versions(of id: ResourceID) async throws -> [FileVersionRecord] { try await base.versions(of: id) }
    func restoreVersion(_ id: ResourceID, version: Int64, restoredBy: ResourceID?, keepVersions: Int, now: Date) async throws -> ContentChange {
        try await base.restoreVersion(id, version: version, restoredBy: restoredBy, keepVersions: keepVersions, now: now)
    }
    func activeLocks(at now: Date) async throws -> [FileRecord] { try await base.activeLocks(at: now) }
    func breakLock(_ id: ResourceID, now: Date) async throws -> (removed: LockState?, file: FileRecord) { try await base.breakLock(id, now: now) }
    func checkReadiness() async throws { try await base.checkReadiness() }

    // Activities, shares, paging, trash
    func recordActivity(_ activity: ActivityRecord) async throws -> Bool { try await base.recordActivity(activity) }
    func activities(mentioning userID: ResourceID) async throws -> [ActivityRecord] { try await base.activities(mentioning: userID) }
    func share(_ itemID: ResourceID, kind: ShareRecord.ItemKind, with userID: ResourceID, role: AccessRole, now: Date) async throws -> ShareRecord {
        try await base.share(itemID, kind: kind, with: userID, role: role, now: now)
    }
    func removeShare(of itemID: ResourceID, with userID: ResourceID) async throws -> Bool { try await base.removeShare(of: itemID, with: userID) }
    func shares(with userID: ResourceID?) async throws -> [ShareRecord] { try await base.shares(with: userID) }
    func shares(of itemID: ResourceID) async throws -> [ShareRecord] { try await base.shares(of: itemID) }
    func fileAccess(_ fileID: ResourceID, by userID: ResourceID) async throws -> FileAccess? { try await base.fileAccess(fileID, by: userID) }
    func containerAccess(_ containerID: ResourceID, by userID: ResourceID) async throws -> ContainerAccess? {
        try await base.containerAccess(containerID, by: userID)
    }
    func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord] {
        try await base.childContainers(of: id, after: after, limit: limit)
    }
    func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord] {
        try await base.childFiles(of: id, after: after, limit: limit)
    }
    func trashFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> TrashedItem { try await base.trashFile(id, lock: lock, now: now) }
    func trashContainer(_ id: ResourceID, onlyIfEmpty: Bool, now: Date) async throws -> TrashedItem {
        try await base.trashContainer(id, onlyIfEmpty: onlyIfEmpty, now: now)
    }
    func trashedItems(ownedBy ownerID: ResourceID?) async throws -> [TrashedItem] { try await base.trashedItems(ownedBy: ownerID) }
    func restoreFromTrash(_ id: ResourceID, as name: String?) async throws -> TrashRestore { try await base.restoreFromTrash(id, as: name) }
    func emptyTrash(ownedBy ownerID: ResourceID?, trashedBefore: Date?) async throws -> TrashPurge {
        try await base.emptyTrash(ownedBy: ownerID, trashedBefore: trashedBefore)
    }
    func deleteFromTrash(_ id: ResourceID, ownedBy ownerID: ResourceID) async throws -> TrashPurge {
        try await base.deleteFromTrash(id, ownedBy: ownerID)
    }

    // Secrets and settings
    func hostSecret(named name: String, orCreate make: @Sendable () -> Data) async throws -> Data { try await base.hostSecret(named: name, orCreate: make) }
    func hostSetting(named name: String) async throws -> String? { try await base.hostSetting(named: name) }
    func setHostSetting(_ value: String, named name: String) async throws { try await base.setHostSetting(value, named: name) }

    // Sign-in records
    func storeAuthorizationCode(_ code: AuthorizationCodeRecord) async throws { try await base.storeAuthorizationCode(code) }
    func authorizationCode(digest: SecretDigest) async throws -> AuthorizationCodeRecord? { try await base.authorizationCode(digest: digest) }
    func redeemAuthorizationCode(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        try await base.redeemAuthorizationCode(digest: digest, issuing: tokens, now: now)
    }
    func oauthToken(digest: SecretDigest) async throws -> OAuthTokenRecord? { try await base.oauthToken(digest: digest) }
    func rotateRefreshToken(digest: SecretDigest, issuing tokens: [OAuthTokenRecord], now: Date) async throws -> Bool {
        let rotated = try await base.rotateRefreshToken(digest: digest, issuing: tokens, now: now)
        return rotated || fault == .refreshTokensRotateAgain
    }
    func revokeGrant(_ grantID: String, now: Date) async throws { try await base.revokeGrant(grantID, now: now) }
    func removeExpiredAuthorizationRecords(before cutoff: Date) async throws { try await base.removeExpiredAuthorizationRecords(before: cutoff) }

    // Audit trail and sign-in failures
    func appendAuditEvents(_ events: [AuditEvent]) async throws { try await base.appendAuditEvents(events) }
    func auditEvents(matching filter: AuditFilter, after cursor: AuditCursor?, limit: Int) async throws -> [AuditEntry] {
        try await base.auditEvents(matching: filter, after: cursor, limit: limit)
    }
    func removeAuditEvents(before cutoff: Date) async throws -> Int {
        let removed = try await base.removeAuditEvents(before: cutoff)
        return fault == .auditRetentionReportsNoRemovals ? 0 : removed
    }
    func signInFailures(key: String, after since: Date) async throws -> (count: Int, oldest: Date?) {
        try await base.signInFailures(key: key, after: since)
    }
    func recordSignInFailure(key: String, at time: Date, forgettingThrough expired: Date) async throws {
        try await base.recordSignInFailure(key: key, at: time, forgettingThrough: fault == .expiredFailuresAreKept ? .distantPast : expired)
    }
    func clearSignInFailures(key: String) async throws { try await base.clearSignInFailures(key: key) }

    // Web sessions
    func createWebSession(_ session: WebSessionRecord, now: Date) async throws { try await base.createWebSession(session, now: now) }
    func webSession(digest: SecretDigest, now: Date) async throws -> WebSessionRecord? { try await base.webSession(digest: digest, now: now) }
    func touchWebSession(digest: SecretDigest, at time: Date) async throws { try await base.touchWebSession(digest: digest, at: time) }
    func endWebSession(digest: SecretDigest) async throws -> Bool {
        if fault == .endedSessionsStayValid { return try await base.webSession(digest: digest, now: .distantPast) != nil }
        return try await base.endWebSession(digest: digest)
    }
    func webSessions(of userID: ResourceID, now: Date) async throws -> [WebSessionRecord] { try await base.webSessions(of: userID, now: now) }
    func endWebSessions(of userID: ResourceID) async throws -> Int { try await base.endWebSessions(of: userID) }
}
