import Foundation
import Testing
import WOPICore
import WOPIHost

/// The promises every `IdentityLinkStore` keeps (accounts linked to people at an OpenID Connect provider, and
/// the sign-ins sent there), as checks you run against your own store from Swift Testing. The store is a
/// `WOPIStore` too: links belong to its users.
///
/// ```swift
/// @Test(arguments: IdentityLinkStoreConformance.Check.allCases)
/// func myLinks(_ check: IdentityLinkStoreConformance.Check) async throws {
///     try await IdentityLinkStoreConformance { try await MyStore.makeEmptyDatabase().linkSubject() }.run(check)
/// }
/// ```
public struct IdentityLinkStoreConformance: ConformanceSuite {
    /// A store under test: a connection to empty storage, and the means to connect to it again.
    public typealias Subject = StoreSubject<any WOPIStore & IdentityLinkStore>

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// An account made on first sign-in is found by (issuer, subject) exactly, never by its name or by the subject
        /// at another issuer, has no usable password and a root folder, and goes with its link when removed.
        case accountsAreFoundByIssuerAndSubjectOnly
        /// Creating refuses a taken name or an identity already linked, and changes nothing.
        case creatingRefusesTakenNamesAndLinkedIdentities
        /// An existing account links once per issuer, and its link is found by account and issuer; a pair links to one
        /// account; an unknown account is not found.
        case explicitLinksAreOnePerIssuerAndIdentity
        /// A sign-in under way is taken once, on any host, and not after it expires.
        case pendingSignInsAreTakenOnceOnAnyHost

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
            case .accountsAreFoundByIssuerAndSubjectOnly: try await foundByIssuerAndSubject(subject.store)
            case .creatingRefusesTakenNamesAndLinkedIdentities: try await creatingRefuses(subject.store)
            case .explicitLinksAreOnePerIssuerAndIdentity: try await explicitLinks(subject.store)
            case .pendingSignInsAreTakenOnceOnAnyHost: try await pendingSignIns(subject)
            }
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_800_000_000.5)
    private static let issuer = "https://id.example.com/realms/staff"

    private func foundByIssuerAndSubject(_ store: any WOPIStore & IdentityLinkStore) async throws {
        let alice = try await store.createUser(name: "alice", displayName: "Alice Ünïcode", issuer: Self.issuer, subject: "248289761001",
                                               now: Self.start)
        #expect(try await store.user(issuer: Self.issuer, subject: "248289761001") == alice, "every field round-trips")
        #expect(try await store.user(id: alice.id) == alice)
        #expect(alice.passwordHash == .unusable && !alice.passwordHash.verify(""), "no password signs in to a linked account")
        #expect(try await store.container(id: alice.rootContainerID)?.ownerID == alice.id, "the account has its root folder")
        #expect(try await store.user(issuer: Self.issuer + "/", subject: "248289761001") == nil, "the issuer compares exactly")
        #expect(try await store.user(issuer: "https://other.example.com", subject: "248289761001") == nil, "the same sub elsewhere is someone else")
        #expect(try await store.user(issuer: Self.issuer, subject: "alice") == nil, "a name is not a subject")
        #expect(try await store.user(issuer: Self.issuer, subject: "248289761001".uppercased() + "X") == nil)
        #expect(try await store.identityLinks() == [IdentityLink(userID: alice.id, issuer: Self.issuer, subject: "248289761001", linkedAt: Self.start)])

        _ = try await store.removeUser(id: alice.id)
        #expect(try await store.user(issuer: Self.issuer, subject: "248289761001") == nil, "the link goes with its account")
        #expect(try await store.identityLinks().isEmpty)
    }

    private func creatingRefuses(_ store: any WOPIStore & IdentityLinkStore) async throws {
        let local = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        await #expect(throws: WOPIStoreError.nameTaken("ALICE")) {
            try await store.createUser(name: "ALICE", displayName: "Other Alice", issuer: Self.issuer, subject: "s-1", now: Self.start)
        }
        #expect(try await store.user(issuer: Self.issuer, subject: "s-1") == nil, "a refused creation links nothing")
        #expect(try await store.users().map(\.id) == [local.id], "and creates no account")
        let linked = try await store.createUser(name: "alice2", displayName: "Alice", issuer: Self.issuer, subject: "s-1", now: Self.start)
        await #expect(throws: WOPIStoreError.self) {
            try await store.createUser(name: "alice3", displayName: "Alice", issuer: Self.issuer, subject: "s-1", now: Self.start)
        }
        #expect(try await store.user(named: "alice3") == nil, "an identity already linked creates no second account")
        #expect(try await store.user(issuer: Self.issuer, subject: "s-1")?.id == linked.id)
    }

    private func explicitLinks(_ store: any WOPIStore & IdentityLinkStore) async throws {
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: try PasswordHash(hashing: "pw", logN: 10))
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        try await store.linkIdentity(issuer: Self.issuer, subject: "a-sub", to: alice.id, now: Self.start)
        #expect(try await store.user(issuer: Self.issuer, subject: "a-sub")?.id == alice.id)
        #expect(try await store.user(id: alice.id)?.passwordHash.verify("pw") == true, "linking keeps the password")

        await #expect(throws: WOPIStoreError.self, "a pair links to one account") {
            try await store.linkIdentity(issuer: Self.issuer, subject: "a-sub", to: bob.id, now: Self.start)
        }
        await #expect(throws: WOPIStoreError.self, "an account has one link per issuer") {
            try await store.linkIdentity(issuer: Self.issuer, subject: "another-sub", to: alice.id, now: Self.start)
        }
        await #expect(throws: WOPIStoreError.notFound) {
            try await store.linkIdentity(issuer: Self.issuer, subject: "nobody", to: .random(), now: Self.start)
        }
        // Another issuer is another namespace.
        try await store.linkIdentity(issuer: "https://other.example.com", subject: "a-sub", to: bob.id, now: Self.start.addingTimeInterval(1))
        #expect(try await store.identityLink(userID: alice.id, issuer: Self.issuer)?.subject == "a-sub")
        #expect(try await store.identityLink(userID: bob.id, issuer: "https://other.example.com")?.subject == "a-sub")
        #expect(try await store.identityLink(userID: bob.id, issuer: Self.issuer) == nil, "bob has no link at the first issuer")
        #expect(try await store.identityLink(userID: alice.id, issuer: "https://other.example.com") == nil)
        let links = try await store.identityLinks()
        #expect(links.map(\.issuer) == ["https://id.example.com/realms/staff", "https://other.example.com"], "by issuer")
        #expect(links.map(\.userID) == [alice.id, bob.id], "refused links changed nothing")
    }

    private func pendingSignIns(_ subject: Subject) async throws {
        let store = subject.store
        let start = Self.start
        func pending(_ state: String, lifetime: TimeInterval = 600, at created: Date = start) -> PendingOpenIDSignIn {
            PendingOpenIDSignIn(stateDigest: SecretDigest(of: state), browserDigest: SecretDigest(of: "browser-" + state),
                                continuation: "authorize?client_id=office&state=x%20y", createdAt: created, expiresAt: created.addingTimeInterval(lifetime))
        }
        try await store.beginOpenIDSignIn(pending("one"), now: start)
        try await store.beginOpenIDSignIn(pending("two"), now: start)
        try await store.beginOpenIDSignIn(pending("short", lifetime: 60), now: start)

        #expect(try await store.takeOpenIDSignIn(stateDigest: SecretDigest(of: "unknown"), now: start) == nil)
        try await subject.withSecondHost { other async throws in
            #expect(try await other.takeOpenIDSignIn(stateDigest: SecretDigest(of: "one"), now: start) == pending("one"), "every field round-trips")
        }
        #expect(try await store.takeOpenIDSignIn(stateDigest: SecretDigest(of: "one"), now: start) == nil, "taken once, on any host")
        #expect(try await store.takeOpenIDSignIn(stateDigest: SecretDigest(of: "short"), now: start.addingTimeInterval(60)) == nil,
                "not at or after its expiry")
        // Beginning another clears the expired ones; the live one stays.
        try await store.beginOpenIDSignIn(pending("three", at: start.addingTimeInterval(601)), now: start.addingTimeInterval(601))
        #expect(try await store.takeOpenIDSignIn(stateDigest: SecretDigest(of: "two"), now: start.addingTimeInterval(599)) == nil,
                "an expired sign-in was cleared out")
        #expect(try await store.takeOpenIDSignIn(stateDigest: SecretDigest(of: "three"), now: start.addingTimeInterval(602)) != nil)
    }
}
