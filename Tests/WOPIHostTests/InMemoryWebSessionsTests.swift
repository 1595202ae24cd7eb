import Foundation
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// The web sessions a host keeps in memory when its store keeps none.
@Suite("In-memory web sessions")
struct InMemoryWebSessionsTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000.25)

    func record(_ user: UserRecord, secret: String, createdAt: Date, lifetime: TimeInterval = WebSession.lifetime,
                userAgent: String? = "Browser/1.0") -> WebSessionRecord {
        WebSessionRecord(digest: SecretDigest(of: secret), userID: user.id, createdAt: createdAt, lastSeenAt: createdAt,
                         expiresAt: createdAt.addingTimeInterval(lifetime), userAgent: userAgent)
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
}
