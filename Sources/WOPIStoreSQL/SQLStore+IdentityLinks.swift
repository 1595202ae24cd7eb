import Foundation
import WOPICore
import WOPIHost

/// `IdentityLinkStore` (tables `identity_links` and `openid_sign_ins`): accounts linked to people at an
/// OpenID Connect provider, and the sign-ins sent there and not yet back.
extension SQLStore {
    /// The account linked to `subject` at `issuer`.
    public func user(issuer: String, subject: String) async throws -> UserRecord? {
        try await first("""
            SELECT \(unescaped: Self.qualified(Self.userColumns, by: "u")) FROM identity_links l JOIN users u ON u.id = l.user_id
            WHERE l.issuer = \(issuer) AND l.subject = \(subject)
            """).map { try Self.user($0) }
    }

    /// Creates an account linked to `subject` at `issuer`, with an empty root container, in one transaction.
    public func createUser(name: String, displayName: String, issuer: String, subject: String, now: Date) async throws -> UserRecord {
        let user = UserRecord(id: .random(), name: name, displayName: displayName, passwordHash: .unusable, rootContainerID: .random())
        do {
            try await transaction { session in
                guard try await session.first("SELECT 1 FROM identity_links WHERE issuer = \(issuer) AND subject = \(subject)") == nil else {
                    throw WOPIStoreError.notAllowed("this identity is already linked to an account")
                }
                guard try await session.first("SELECT 1 FROM users WHERE \(dialect.sameName("name", name))") == nil else {
                    throw WOPIStoreError.nameTaken(name)
                }
                try await session.execute("""
                    INSERT INTO users (id, name, display_name, password_hash, root_container_id)
                    VALUES (\(user.id), \(name), \(displayName), \(PasswordHash.unusable.encoded), \(user.rootContainerID))
                    """)
                try await session.execute("""
                    INSERT INTO containers (id, parent_id, owner_id, name)
                    VALUES (\(user.rootContainerID), NULL, \(user.id), \(WOPIName.sanitized("\(displayName)'s files").rawValue))
                    """)
                try await session.execute("""
                    INSERT INTO identity_links (issuer, subject, user_id, linked_at) VALUES (\(issuer), \(subject), \(user.id), \(now))
                    """)
            }
        } catch where isUniqueViolation(error) {
            // A concurrent writer took the name or linked the identity since the checks: tell which.
            if try await self.user(issuer: issuer, subject: subject) != nil {
                throw WOPIStoreError.notAllowed("this identity is already linked to an account")
            }
            throw WOPIStoreError.nameTaken(name)
        }
        return user
    }

    /// Links an existing account to `subject` at `issuer`.
    public func linkIdentity(issuer: String, subject: String, to userID: ResourceID, now: Date) async throws {
        do {
            try await transaction { session in
                guard try await session.first("SELECT 1 FROM users WHERE id = \(userID)\(unescaped: dialect.forShare)") != nil else {
                    throw WOPIStoreError.notFound
                }
                guard try await session.first("SELECT 1 FROM identity_links WHERE issuer = \(issuer) AND subject = \(subject)") == nil else {
                    throw WOPIStoreError.notAllowed("this identity is already linked to an account")
                }
                guard try await session.first("SELECT 1 FROM identity_links WHERE issuer = \(issuer) AND user_id = \(userID)") == nil else {
                    throw WOPIStoreError.notAllowed("the account is already linked to an identity at this issuer")
                }
                try await session.execute("""
                    INSERT INTO identity_links (issuer, subject, user_id, linked_at) VALUES (\(issuer), \(subject), \(userID), \(now))
                    """)
            }
        } catch where isUniqueViolation(error) {
            throw WOPIStoreError.notAllowed("this identity or account was linked at the same time")
        }
    }

    /// The account's link at `issuer`, if it has one.
    public func identityLink(userID: ResourceID, issuer: String) async throws -> IdentityLink? {
        try await first("SELECT \(unescaped: Self.linkColumns) FROM identity_links WHERE user_id = \(userID) AND issuer = \(issuer)")
            .map(Self.link)
    }

    /// Every link, by issuer and then subject.
    public func identityLinks() async throws -> [IdentityLink] {
        try await rows("SELECT \(unescaped: Self.linkColumns) FROM identity_links ORDER BY issuer, subject").map(Self.link)
    }

    private static var linkColumns: String { "user_id, issuer, subject, linked_at" }

    private static func link(_ row: SQLRow) throws -> IdentityLink {
        IdentityLink(userID: try row.id(0, column: "identity_links.user_id"), issuer: try row.text(1), subject: try row.text(2), linkedAt: try row.date(3))
    }

    /// Keeps a sign-in under way, and forgets those expired at `now`.
    public func beginOpenIDSignIn(_ pending: PendingOpenIDSignIn, now: Date) async throws {
        try await transaction { session in
            try await session.execute("DELETE FROM openid_sign_ins WHERE expires_at <= \(now)")
            try await session.execute("""
                INSERT INTO openid_sign_ins (state_digest, browser_digest, continuation, created_at, expires_at)
                VALUES (\(pending.stateDigest.hex), \(pending.browserDigest.hex), \(pending.continuation), \(pending.createdAt), \(pending.expiresAt))
                """)
        }
    }

    /// Removes and returns the sign-in with this state, unless it expired; one statement, so only one caller gets it.
    public func takeOpenIDSignIn(stateDigest: SecretDigest, now: Date) async throws -> PendingOpenIDSignIn? {
        try await write("""
            DELETE FROM openid_sign_ins WHERE state_digest = \(stateDigest.hex)
            RETURNING state_digest, browser_digest, continuation, created_at, expires_at
            """).first.flatMap { row -> PendingOpenIDSignIn? in
            guard let state = SecretDigest(hex: try row.text(0)) else { throw StoredValueError(column: "openid_sign_ins.state_digest", value: try row.text(0)) }
            guard let browser = SecretDigest(hex: try row.text(1)) else {
                throw StoredValueError(column: "openid_sign_ins.browser_digest", value: try row.text(1))
            }
            let record = PendingOpenIDSignIn(stateDigest: state, browserDigest: browser, continuation: try row.text(2),
                                             createdAt: try row.date(3), expiresAt: try row.date(4))
            return record.expiresAt > now ? record : nil
        }
    }
}
