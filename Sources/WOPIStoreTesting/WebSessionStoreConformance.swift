import Foundation
import Testing
import WOPICore
import WOPIHost

/// The promises every `WebSessionStore` keeps (the web front's sessions: what every host of a
/// deployment reads to know who is signed in, and what signing out deletes), as checks you run against your
/// own store from Swift Testing. The store is a `WOPIStore` too: sessions belong to its users.
///
/// ```swift
/// @Test(arguments: WebSessionStoreConformance.Check.allCases)
/// func mySessions(_ check: WebSessionStoreConformance.Check) async throws {
///     try await WebSessionStoreConformance { try await MyStore.makeEmptyDatabase().sessionSubject() }.run(check)
/// }
/// ```
///
/// Each check asks `makeSubject` for a connection to new, empty storage used by nothing else, connects to it
/// again where it needs a second host, closes every connection when it ends, and reports failures as Swift
/// Testing issues.
public struct WebSessionStoreConformance: ConformanceSuite {
    /// A store under test: a connection to empty storage, and the means to connect to it again.
    public typealias Subject = StoreSubject<any WOPIStore & WebSessionStore>

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Sessions are found by digest with every field, listed newest first per user, touched forward only, and ended
        /// one by one or all of a user's at once; a removed user's sessions go with them.
        case sessionsAreFoundByDigestListedAndEnded
        /// A session ends at its expiry: neither found nor listed, and cleared out when a new one is created.
        case expiredSessionsAreNeitherFoundNorKept
        /// A new password ends the user's sessions in the same step, and only theirs.
        case aNewPasswordEndsTheUsersSessions
        /// A session begun on one host is valid on another, and ending it on either ends it on both.
        case aSessionIsValidOnEveryHost

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    private let makeSubject: @Sendable () async throws -> Subject

    /// Checks over the stores `makeSubject` returns: each call, new and empty storage.
    public init(makeSubject: @escaping @Sendable () async throws -> Subject) {
        self.makeSubject = makeSubject
    }

    /// Runs one check.
    public func run(_ check: Check) async throws {
        try await makeSubject().closing { subject in
            switch check {
            case .sessionsAreFoundByDigestListedAndEnded: try await sessionsAreFoundByDigest(subject.store)
            case .expiredSessionsAreNeitherFoundNorKept: try await expiredSessionsAreNeitherFoundNorKept(subject.store)
            case .aNewPasswordEndsTheUsersSessions: try await newPasswordEndsSessions(subject.store)
            case .aSessionIsValidOnEveryHost: try await sessionsAcrossHosts(subject)
            }
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_800_000_000.25)

    /// A session of `user`, last seen when created, lasting `lifetime` (by default the web front's eight hours).
    private static func record(_ user: UserRecord, secret: String, createdAt: Date, lifetime: TimeInterval = 8 * 3600,
                               userAgent: String? = "Browser/1.0") -> WebSessionRecord {
        WebSessionRecord(digest: SecretDigest(of: secret), userID: user.id, createdAt: createdAt, lastSeenAt: createdAt,
                         expiresAt: createdAt.addingTimeInterval(lifetime), userAgent: userAgent)
    }

    private func sessionsAreFoundByDigest(_ store: any WOPIStore & WebSessionStore) async throws {
        let start = Self.start
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        let first = Self.record(alice, secret: "first", createdAt: start, userAgent: "Safari ünïcode")
        let second = Self.record(alice, secret: "second", createdAt: start.addingTimeInterval(60), userAgent: nil)
        let bobs = Self.record(bob, secret: "bobs", createdAt: start)
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

        try await store.createWebSession(Self.record(alice, secret: "third", createdAt: later), now: later)
        #expect(try await store.endWebSessions(of: alice.id) == 2)
        #expect(try await store.webSessions(of: alice.id, now: later).isEmpty)
        #expect(try await store.webSession(digest: bobs.digest, now: later) == bobs, "another user's session stays")
        #expect(try await store.endWebSessions(of: alice.id) == 0)

        // A removed user's sessions go with them.
        _ = try await store.removeUser(id: bob.id)
        #expect(try await store.webSession(digest: bobs.digest, now: later) == nil)
    }

    private func expiredSessionsAreNeitherFoundNorKept(_ store: any WOPIStore & WebSessionStore) async throws {
        let start = Self.start
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let short = Self.record(alice, secret: "short", createdAt: start, lifetime: 60)
        try await store.createWebSession(short, now: start)
        #expect(try await store.webSession(digest: short.digest, now: start.addingTimeInterval(59)) == short)
        #expect(try await store.webSession(digest: short.digest, now: start.addingTimeInterval(60)) == nil, "ends at its expiry")
        #expect(try await store.webSessions(of: alice.id, now: start.addingTimeInterval(60)).isEmpty)
        // A new session clears out the ended ones: ending all afterwards finds only the new one.
        try await store.createWebSession(Self.record(alice, secret: "new", createdAt: start.addingTimeInterval(120)), now: start.addingTimeInterval(120))
        #expect(try await store.endWebSessions(of: alice.id) == 1)
    }

    private func newPasswordEndsSessions(_ store: any WOPIStore & WebSessionStore) async throws {
        let start = Self.start
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: try PasswordHash(hashing: "old-password", logN: 10))
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        for (user, secret) in [(alice, "a1"), (alice, "a2"), (bob, "b1")] {
            try await store.createWebSession(Self.record(user, secret: secret, createdAt: start), now: start)
        }
        #expect(try await store.setPasswordHash(try PasswordHash(hashing: "new-password", logN: 10), for: alice.id) == 2)
        let changed = try #require(try await store.user(id: alice.id))
        #expect(changed.passwordHash.verify("new-password") && !changed.passwordHash.verify("old-password"))
        #expect(try await store.webSessions(of: alice.id, now: start).isEmpty)
        #expect(try await store.webSessions(of: bob.id, now: start).count == 1)
        await #expect(throws: WOPIStoreError.notFound) { try await store.setPasswordHash(.unusable, for: .random()) }
    }

    private func sessionsAcrossHosts(_ subject: Subject) async throws {
        let start = Self.start
        let store = subject.store
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let mine = Self.record(alice, secret: "mine", createdAt: start)
        try await store.createWebSession(mine, now: start)
        try await subject.withSecondHost { other async throws in
            #expect(try await other.webSession(digest: mine.digest, now: start) == mine)
            #expect(try await other.endWebSession(digest: mine.digest))
        }
        #expect(try await store.webSession(digest: mine.digest, now: start) == nil)
    }
}
