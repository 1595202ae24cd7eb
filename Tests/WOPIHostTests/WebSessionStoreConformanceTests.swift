import Foundation
import Testing
import WOPICore
@testable import WOPIHost

/// The web front's sessions on SQLite and a real PostgreSQL server: what every host of a deployment
/// reads to know who is signed in, and what signing out deletes.
@Suite("Store conformance: web sessions")
struct WebSessionStoreConformanceTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000.25)

    func sessions(_ storage: HostStorage) throws -> any WebSessionStore {
        try #require(storage.store as? any WebSessionStore)
    }

    func record(_ user: UserRecord, secret: String, createdAt: Date, lifetime: TimeInterval = WebSession.lifetime,
                userAgent: String? = "Browser/1.0") -> WebSessionRecord {
        WebSessionRecord(digest: SecretDigest(of: secret), userID: user.id, createdAt: createdAt, lastSeenAt: createdAt,
                         expiresAt: createdAt.addingTimeInterval(lifetime), userAgent: userAgent)
    }

    @Test(arguments: StoreKind.allCases)
    func sessionsAreFoundByDigestListedAndEnded(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = try sessions(storage)
            let alice = try await storage.store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
            let bob = try await storage.store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
            let first = record(alice, secret: "first", createdAt: start, userAgent: "Safari ünïcode")
            let second = record(alice, secret: "second", createdAt: start.addingTimeInterval(60), userAgent: nil)
            let bobs = record(bob, secret: "bobs", createdAt: start)
            for session in [first, second, bobs] { try await store.createWebSession(session, now: start) }

            #expect(try await store.webSession(digest: SecretDigest(of: "first"), now: start) == first, "every field round-trips")
            #expect(try await store.webSession(digest: SecretDigest(of: "unknown"), now: start) == nil)
            #expect(try await store.webSessions(of: alice.id, now: start) == [second, first], "newest first, only alice's")

            // Used later: "last seen" moves forward, never back.
            let later = start.addingTimeInterval(600)
            try await store.touchWebSession(digest: first.digest, at: later)
            try await store.touchWebSession(digest: first.digest, at: start.addingTimeInterval(300))
            #expect(try await store.webSession(digest: first.digest, now: later)?.lastSeenAt == later)

            #expect(try await store.endWebSession(digest: first.digest))
            #expect(try await store.endWebSession(digest: first.digest) == false, "ending twice finds nothing the second time")
            #expect(try await store.webSession(digest: first.digest, now: later) == nil)
            #expect(try await store.webSessions(of: alice.id, now: later).map(\.digest) == [second.digest])

            try await store.createWebSession(record(alice, secret: "third", createdAt: later), now: later)
            #expect(try await store.endWebSessions(of: alice.id) == 2)
            #expect(try await store.webSessions(of: alice.id, now: later).isEmpty)
            #expect(try await store.webSession(digest: bobs.digest, now: later) == bobs, "another user's session stays")
            #expect(try await store.endWebSessions(of: alice.id) == 0)

            // A removed user's sessions go with them.
            _ = try await storage.store.removeUser(id: bob.id)
            #expect(try await store.webSession(digest: bobs.digest, now: later) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func expiredSessionsAreNeitherFoundNorKept(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = try sessions(storage)
            let alice = try await storage.store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
            let short = record(alice, secret: "short", createdAt: start, lifetime: 60)
            try await store.createWebSession(short, now: start)
            #expect(try await store.webSession(digest: short.digest, now: start.addingTimeInterval(59)) == short)
            #expect(try await store.webSession(digest: short.digest, now: start.addingTimeInterval(60)) == nil, "ends at its expiry")
            #expect(try await store.webSessions(of: alice.id, now: start.addingTimeInterval(60)).isEmpty)
            // A new session clears out the ended ones: ending all afterwards finds only the new one.
            try await store.createWebSession(record(alice, secret: "new", createdAt: start.addingTimeInterval(120)), now: start.addingTimeInterval(120))
            #expect(try await store.endWebSessions(of: alice.id) == 1)
        }
    }

    @Test("A new password ends the user's sessions in the same step, and only theirs", arguments: StoreKind.allCases)
    func newPasswordEndsSessions(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { _, storage in
            let store = try sessions(storage)
            let alice = try await storage.store.createUser(name: "alice", displayName: "Alice", passwordHash: try PasswordHash(hashing: "old-password", logN: 10))
            let bob = try await storage.store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
            for (user, secret) in [(alice, "a1"), (alice, "a2"), (bob, "b1")] {
                try await store.createWebSession(record(user, secret: secret, createdAt: start), now: start)
            }
            #expect(try await storage.store.setPasswordHash(try PasswordHash(hashing: "new-password", logN: 10), for: alice.id) == 2)
            let changed = try #require(try await storage.store.user(id: alice.id))
            #expect(changed.passwordHash.verify("new-password") && !changed.passwordHash.verify("old-password"))
            #expect(try await store.webSessions(of: alice.id, now: start).isEmpty)
            #expect(try await store.webSessions(of: bob.id, now: start).count == 1)
            await #expect(throws: WOPIStoreError.notFound) { try await storage.store.setPasswordHash(.unusable, for: .random()) }
        }
    }

    @Test("The in-memory fallback for other stores finds, lists, expires and ends sessions the same way")
    func inMemoryFallback() async throws {
        let store: any WebSessionStore = InMemoryWebSessions()
        let alice = UserRecord(id: .random(), name: "alice", displayName: "Alice", passwordHash: .unusable, rootContainerID: .random())
        let bob = UserRecord(id: .random(), name: "bob", displayName: "Bob", passwordHash: .unusable, rootContainerID: .random())
        let short = record(alice, secret: "short", createdAt: start, lifetime: 60)
        let long = record(alice, secret: "long", createdAt: start.addingTimeInterval(1))
        let bobs = record(bob, secret: "bobs", createdAt: start)
        for session in [short, long, bobs] { try await store.createWebSession(session, now: start) }
        #expect(try await store.webSessions(of: alice.id, now: start) == [long, short])
        #expect(try await store.webSession(digest: short.digest, now: start.addingTimeInterval(60)) == nil)
        try await store.touchWebSession(digest: long.digest, at: start.addingTimeInterval(90))
        #expect(try await store.webSession(digest: long.digest, now: start.addingTimeInterval(90))?.lastSeenAt == start.addingTimeInterval(90))
        #expect(try await store.endWebSession(digest: long.digest))
        #expect(try await store.endWebSessions(of: alice.id) == 1, "the expired one was still kept")
        #expect(try await store.webSession(digest: bobs.digest, now: start) == bobs)
    }

    @Test("A session begun on one host is valid on another, and ending it on either ends it on both", arguments: StoreKind.allCases)
    func sessionsAcrossHosts(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { subject, storage in
            let store = try sessions(storage)
            let alice = try await storage.store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
            let mine = record(alice, secret: "mine", createdAt: start)
            try await store.createWebSession(mine, now: start)
            try await subject.withSecondHost { second in
                let other = try sessions(second)
                #expect(try await other.webSession(digest: mine.digest, now: start) == mine)
                #expect(try await other.endWebSession(digest: mine.digest))
            }
            #expect(try await store.webSession(digest: mine.digest, now: start) == nil)
        }
    }
}
