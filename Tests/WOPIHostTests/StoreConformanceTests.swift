import Foundation
import GRDB
import PostgresNIO
import Testing
import WOPICore
@testable import WOPIHost
@testable import WOPIStoreSQLite
@testable import WOPIStorePostgres

/// One suite every ``WOPIStore`` + ``AuthorizationStore`` must pass: run against SQLite and a real
/// PostgreSQL server, so the two stores cannot drift apart.
@Suite("Store conformance")
struct StoreConformanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000.125)

    // MARK: Users

    @Test(arguments: StoreKind.allCases)
    func usersAreUniqueByCaseInsensitiveNameAndRemovedWithEverythingTheyOwn(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let alice = try await store.createUser(name: "Alice", displayName: "Alice A", passwordHash: .unusable)
            await #expect(throws: WOPIStoreError.nameTaken("alice")) {
                try await store.createUser(name: "alice", displayName: "Other", passwordHash: .unusable)
            }
            let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
            #expect(try await store.user(id: alice.id) == alice)
            #expect(try await store.user(named: "ALICE")?.id == alice.id)
            #expect(try await store.user(named: "nobody") == nil)
            #expect(try await store.users().map(\.name) == ["Alice", "bob"])

            let root = try #require(try await store.container(id: alice.rootContainerID))
            #expect(root.parentID == nil && root.ownerID == alice.id && root.name == "Alice A's files")

            try await store.setUserInfo("{\"theme\":1}", for: alice.id)
            #expect(try await store.user(id: alice.id)?.userInfo == "{\"theme\":1}")
            await #expect(throws: WOPIStoreError.notFound) { try await store.setUserInfo("x", for: .random()) }

            let folder = try await store.createContainer(named: "Deep", in: alice.rootContainerID)
            let deeper = try await store.createContainer(named: "Deeper", in: folder.id)
            let blobs = [fakeBlob(), fakeBlob()]
            _ = try await store.createFile(named: "a.docx", in: alice.rootContainerID, blob: blobs[0], replacing: false, now: now)
            _ = try await store.createFile(named: "b.docx", in: deeper.id, blob: blobs[1], replacing: false, now: now)
            let bobsFile = try await store.createFile(named: "b.docx", in: bob.rootContainerID, blob: fakeBlob(), replacing: false, now: now).file

            #expect(Set(try await store.removeUser(id: alice.id)) == Set(blobs.map(\.key)))
            #expect(try await store.user(id: alice.id) == nil)
            #expect(try await store.container(id: deeper.id) == nil)
            #expect(try await store.container(id: alice.rootContainerID) == nil)
            #expect(try await store.file(id: bobsFile.id) == bobsFile, "another user's files stay")
            await #expect(throws: WOPIStoreError.notFound) { try await store.removeUser(id: alice.id) }
        }
    }

    // MARK: Containers

    @Test(arguments: StoreKind.allCases)
    func containersKeepSiblingNamesUniqueAndDeleteOnlyWhenEmpty(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "carol", displayName: "Carol", passwordHash: .unusable)
            let root = user.rootContainerID
            let reports = try await store.createContainer(named: "Reports", in: root)
            _ = try await store.createContainer(named: "archive", in: root)
            await #expect(throws: WOPIStoreError.nameTaken("REPORTS")) { try await store.createContainer(named: "REPORTS", in: root) }
            await #expect(throws: WOPIStoreError.notFound) { try await store.createContainer(named: "x", in: .random()) }
            let q4 = try await store.createContainer(named: "Q4", in: reports.id)
            #expect(q4.ownerID == user.id && q4.parentID == reports.id)

            #expect(try await store.containerPath(to: q4.id).map(\.id) == [root, reports.id, q4.id])
            await #expect(throws: WOPIStoreError.notFound) { try await store.containerPath(to: .random()) }

            _ = try await store.createFile(named: "b.xlsx", in: root, blob: fakeBlob(), replacing: false, now: now)
            _ = try await store.createFile(named: "A.docx", in: root, blob: fakeBlob(), replacing: false, now: now)
            let children = try await store.children(of: root)
            #expect(children.containers.map(\.name) == ["archive", "Reports"], "sorted by name, ignoring case")
            #expect(children.files.map(\.name) == ["A.docx", "b.xlsx"])
            await #expect(throws: WOPIStoreError.notFound) { try await store.children(of: .random()) }

            await #expect(throws: WOPIStoreError.nameTaken("Archive")) { try await store.renameContainer(reports.id, to: "Archive") }
            #expect(try await store.renameContainer(reports.id, to: "Finance").name == "Finance")
            #expect(try await store.renameContainer(reports.id, to: "FINANCE").name == "FINANCE", "a container may change its own case")
            #expect(try await store.renameContainer(root, to: "My files").name == "My files", "a root can be renamed")
            #expect(try await store.container(id: reports.id)?.name == "FINANCE")

            await #expect(throws: WOPIStoreError.notEmpty) { try await store.deleteContainer(reports.id) }
            await #expect(throws: WOPIStoreError.notEmpty) { try await store.deleteContainer(root) }
            try await store.deleteContainer(q4.id)
            try await store.deleteContainer(reports.id)
            #expect(try await store.container(id: reports.id) == nil)
            await #expect(throws: WOPIStoreError.notFound) { try await store.deleteContainer(reports.id) }
        }
    }

    // MARK: Files

    @Test(arguments: StoreKind.allCases)
    func filesGetNewVersionsOnEveryChangeAndNeverReuseOne(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "dave", displayName: "Dave", passwordHash: .unusable)
            let folder = user.rootContainerID
            let first = fakeBlob(size: 0, tag: "first")
            let file = try await store.createFile(named: "Plan.docx", in: folder, blob: first, replacing: false, now: now).file
            #expect(file.size == 0 && file.blobKey == first.key && file.sha256 == first.sha256 && file.modifiedAt == now && file.lock == nil)
            #expect(try await store.file(id: file.id) == file, "a record reads back exactly, dates included")
            #expect(try await store.file(named: "PLAN.DOCX", in: folder)?.id == file.id)
            await #expect(throws: WOPIStoreError.nameTaken("Plan.docx")) {
                try await store.createFile(named: "plan.DOCX", in: folder, blob: fakeBlob(), replacing: false, now: now)
            }
            await #expect(throws: WOPIStoreError.notFound) {
                try await store.createFile(named: "x.docx", in: .random(), blob: fakeBlob(), replacing: false, now: now)
            }

            var versions = [file.version]
            let second = fakeBlob(size: 0, tag: "second") // still empty, so an unlocked PutFile may follow
            let replaced = try await store.createFile(named: "plan.docx", in: folder, blob: second, replacing: true, now: now.addingTimeInterval(1))
            #expect(replaced.file.id == file.id && replaced.replacedBlob == first.key && replaced.file.blobKey == second.key)
            versions.append(replaced.file.version)

            let third = fakeBlob(size: 7, tag: "third")
            let saved = try await store.replaceContent(file.id, with: third, lock: nil, now: now.addingTimeInterval(2))
            #expect(saved.replacedBlob == second.key && saved.file.size == 7 && saved.file.sha256 == third.sha256)
            versions.append(saved.file.version)

            let renamed = try await store.renameFile(file.id, to: "Plan v2.docx", lock: nil, now: now)
            #expect(renamed.name == "Plan v2.docx")
            #expect(try await store.file(id: file.id)?.name == "Plan v2.docx")
            versions.append(renamed.version)
            _ = try await store.createFile(named: "Other.docx", in: folder, blob: fakeBlob(), replacing: false, now: now)
            await #expect(throws: WOPIStoreError.nameTaken("other.docx")) { try await store.renameFile(file.id, to: "other.docx", lock: nil, now: now) }

            #expect(try await store.deleteFile(file.id, lock: nil, now: now) == third.key)
            #expect(try await store.file(id: file.id) == nil)
            await #expect(throws: WOPIStoreError.notFound) { try await store.deleteFile(file.id, lock: nil, now: now) }
            let again = try await store.createFile(named: "Plan v2.docx", in: folder, blob: fakeBlob(), replacing: false, now: now).file
            versions.append(again.version)
            #expect(versions == versions.sorted() && Set(versions).count == versions.count, "versions \(versions) must strictly increase")
            #expect(try await store.referencedBlobs().count == 2)
        }
    }

    // MARK: Locks

    @Test(arguments: StoreKind.allCases)
    func lockRequestsFollowTheRulesAndRefusalsReportTheCurrentLock(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = storage.store
            let user = try await store.createUser(name: "erin", displayName: "Erin", passwordHash: .unusable)
            let file = try await store.createFile(named: "Book.xlsx", in: user.rootContainerID, blob: fakeBlob(size: 3), replacing: false, now: now).file
            let mine = WOPILock("mine")!, theirs = WOPILock("{\"S\":\"theirs\"}")!

            let locked = try await store.updateLock(file.id, request: .lock(mine), now: now)
            #expect(locked.decision == .granted(newState: LockState(lock: mine, expiresAt: now.addingTimeInterval(LockRules.lifetime))))
            #expect(try await store.file(id: file.id)?.lock == LockState(lock: mine, expiresAt: now.addingTimeInterval(LockRules.lifetime)))

            let refused = try await store.updateLock(file.id, request: .lock(theirs), now: now)
            #expect(refused.decision == .conflict(currentLock: "mine", reason: "File is locked by another client"))
            await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "Lock mismatch")) {
                try await store.replaceContent(file.id, with: fakeBlob(), lock: theirs, now: now)
            }
            await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "File is locked")) {
                try await store.renameFile(file.id, to: "x.xlsx", lock: nil, now: now)
            }
            await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "File is locked")) {
                try await store.deleteFile(file.id, lock: nil, now: now)
            }
            await #expect(throws: WOPIStoreError.lockConflict(currentLock: "mine", reason: "File is locked")) {
                try await store.createFile(named: "book.xlsx", in: user.rootContainerID, blob: fakeBlob(), replacing: true, now: now)
            }
            #expect(try await store.file(id: file.id)?.version == file.version, "refusals change nothing")

            let saved = try await store.replaceContent(file.id, with: fakeBlob(size: 9), lock: mine, now: now)
            #expect(saved.file.lock?.lock == mine, "saving keeps the lock")
            let later = now.addingTimeInterval(60)
            let swapped = try await store.updateLock(file.id, request: .unlockAndRelock(old: mine, new: theirs), now: later)
            #expect(swapped.decision == .granted(newState: LockState(lock: theirs, expiresAt: later.addingTimeInterval(LockRules.lifetime))))
            #expect(try await store.updateLock(file.id, request: .unlock(mine), now: later).decision
                    == .conflict(currentLock: theirs.value, reason: "Lock mismatch"))
            let unlocked = try await store.updateLock(file.id, request: .unlock(theirs), now: later)
            #expect(unlocked.decision == .granted(newState: nil) && unlocked.file.lock == nil)
            #expect(try await store.file(id: file.id)?.lock == nil)
            await #expect(throws: WOPIStoreError.lockConflict(currentLock: "", reason: "File is not locked")) {
                try await store.replaceContent(file.id, with: fakeBlob(), lock: nil, now: later)
            }

            // An expired lock counts as no lock.
            _ = try await store.updateLock(file.id, request: .lock(mine), now: now)
            let expired = now.addingTimeInterval(LockRules.lifetime + 1)
            #expect(try await store.updateLock(file.id, request: .lock(theirs), now: expired).decision
                    == .granted(newState: LockState(lock: theirs, expiresAt: expired.addingTimeInterval(LockRules.lifetime))))
            await #expect(throws: WOPIStoreError.notFound) { try await store.updateLock(.random(), request: .lock(mine), now: now) }
        }
    }

    /// 64 clients racing to lock one file through two hosts: exactly one wins, and every refusal names its lock.
    @Test(arguments: StoreKind.allCases)
    func sixtyFourClientsOnTwoHostsRacingForOneLockGetOneWinner(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, first in
            let user = try await first.store.createUser(name: "race", displayName: "Race", passwordHash: .unusable)
            let file = try await first.store.createFile(named: "Race.docx", in: user.rootContainerID, blob: fakeBlob(), replacing: false, now: now).file
            try await subject.withSecondHost { second in
                let stores = [first.store, second.store]
                let now = now
                let decisions = try await withThrowingTaskGroup(of: (String, LockRules.Decision).self) { group in
                    for client in 0..<64 {
                        let lock = "client-\(client)"
                        group.addTask { (lock, try await stores[client % 2].updateLock(file.id, request: .lock(WOPILock(lock)!), now: now).decision) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let winners = decisions.filter { if case .granted = $0.1 { true } else { false } }
                try #require(winners.count == 1, "winners: \(winners.map(\.0))")
                let winner = winners[0].0
                for (lock, decision) in decisions where lock != winner {
                    #expect(decision == .conflict(currentLock: winner, reason: "File is locked by another client"))
                }
                #expect(try await second.store.file(id: file.id)?.lock?.lock.value == winner)
            }
        }
    }

    // MARK: Secrets and settings

    @Test(arguments: StoreKind.allCases)
    func hostSecretsAreCreatedOnceForEveryHost(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, first in
            try await subject.withSecondHost { second in
                let made = try await withThrowingTaskGroup(of: Data.self) { group in
                    for index in 0..<16 {
                        let store = index.isMultiple(of: 2) ? first.store : second.store
                        group.addTask { try await store.hostSecret(named: "key") { Data("candidate-\(index)".utf8) } }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(Set(made).count == 1, "every host must end up with the same secret: \(Set(made).map { String(decoding: $0, as: UTF8.self) })")
                #expect(try await second.store.hostSecret(named: "key") { Data("late".utf8) } == made[0])
                #expect(try await first.store.hostSetting(named: "public-url") == nil)
                try await first.store.setHostSetting("https://a.example", named: "public-url")
                try await second.store.setHostSetting("https://b.example", named: "public-url")
                #expect(try await first.store.hostSetting(named: "public-url") == "https://b.example")
            }
        }
    }

    // MARK: Sign-in records

    @Test(arguments: StoreKind.allCases)
    func codesRedeemOnceAndRefreshTokensRotateOnceAcrossHosts(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, first in
            let user = try await first.store.createUser(name: "frank", displayName: "Frank", passwordHash: .unusable)
            let code = AuthorizationCodeRecord(
                digest: SecretDigest(of: "code-1"), clientID: "office", redirectURI: "https://localhost", redirectURIRequired: true,
                userID: user.id, scope: "wopi", codeChallenge: nil, sessionContextDigest: SecretDigest(of: "sc"), grantID: "grant-1",
                createdAt: now, expiresAt: now.addingTimeInterval(300), redeemedAt: nil)
            try await first.store.storeAuthorizationCode(code)
            try await subject.withSecondHost { second in
                #expect(try await second.store.authorizationCode(digest: code.digest) == code)
                let refresh = token("refresh-1", .refresh, user: user.id)
                let access = token("access-1", .access, user: user.id)
                let redeemed = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<8 {
                        let store = index.isMultiple(of: 2) ? first.store : second.store
                        group.addTask { try await store.redeemAuthorizationCode(digest: code.digest, issuing: [access, refresh], now: now) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(redeemed.filter { $0 }.count == 1, "exactly one redemption wins: \(redeemed)")
                #expect(try await first.store.authorizationCode(digest: code.digest)?.redeemedAt == now)
                #expect(try await second.store.oauthToken(digest: access.digest) == access)

                let successor = token("refresh-2", .refresh, user: user.id)
                #expect(try await second.store.rotateRefreshToken(digest: refresh.digest, issuing: [successor], now: now))
                #expect(try await first.store.rotateRefreshToken(digest: refresh.digest, issuing: [token("refresh-3", .refresh, user: user.id)], now: now) == false)
                #expect(try await first.store.oauthToken(digest: SecretDigest(of: "refresh-3")) == nil, "a refused rotation stores nothing")
                #expect(try await first.store.rotateRefreshToken(digest: access.digest, issuing: [], now: now) == false, "an access token does not rotate")

                try await first.store.revokeGrant("grant-1", now: now.addingTimeInterval(5))
                #expect(try await second.store.oauthToken(digest: successor.digest)?.revokedAt == now.addingTimeInterval(5))
                #expect(try await second.store.oauthToken(digest: refresh.digest)?.revokedAt == now, "an earlier revocation keeps its time")

                try await second.store.removeExpiredAuthorizationRecords(before: now.addingTimeInterval(3601))
                #expect(try await first.store.authorizationCode(digest: code.digest) == nil)
                #expect(try await first.store.oauthToken(digest: access.digest) == nil)
                #expect(try await first.store.oauthToken(digest: successor.digest) != nil, "a refresh token lasts longer")

                _ = try await first.store.removeUser(id: user.id)
                #expect(try await second.store.oauthToken(digest: successor.digest) == nil, "a removed user's tokens go with them")
            }
        }
    }

    private func token(_ secret: String, _ kind: OAuthTokenRecord.Kind, user: ResourceID) -> OAuthTokenRecord {
        OAuthTokenRecord(digest: SecretDigest(of: secret), kind: kind, grantID: "grant-1", clientID: "office", userID: user, scope: "wopi",
                         sessionContextDigest: nil, createdAt: now, expiresAt: now.addingTimeInterval(kind == .access ? 3600 : 86400), revokedAt: nil)
    }

    // MARK: Schema

    @Test(arguments: StoreKind.allCases)
    func aSchemaFromANewerBinaryIsRefused(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, storage in
            let user = try await storage.store.createUser(name: "gina", displayName: "Gina", passwordHash: .unusable)
            switch kind {
            case .sqlite:
                let store = try #require(storage.store as? SQLiteStore)
                try await store.pool.write { db in
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
                }
            case .postgresql:
                let store = try #require(storage.store as? PostgresStore)
                try await store.client.query("INSERT INTO wopikit_schema_migrations (version, name) VALUES (99, 'from the future')")
            }
            do {
                let reopened = try await subject.open()
                await reopened.close()
                Issue.record("a database migrated by a newer binary was opened")
            } catch let error as StoreSchemaError {
                #expect(error.description.contains("newer than this wopi binary supports"))
            }
            #expect(try await storage.store.user(id: user.id) == user, "refusing to start changes nothing")
        }
    }
}
