import Foundation
import Testing
import WOPICore
import WOPIHost

/// Host secrets and settings, authorization codes and OAuth tokens: what every host of a deployment shares.
extension StoreConformance {
    func hostSecretsAreCreatedOnce(_ subject: Subject) async throws {
        let first = subject.store
        try await subject.withSecondHost { second in
            let made = try await withThrowingTaskGroup(of: Data.self) { group in
                for index in 0..<16 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.hostSecret(named: "key") { Data("candidate-\(index)".utf8) } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(made).count == 1, "every host must end up with the same secret: \(Set(made).map { String(decoding: $0, as: UTF8.self) })")
            #expect(try await second.hostSecret(named: "key") { Data("late".utf8) } == made[0])
            #expect(try await first.hostSetting(named: "public-url") == nil)
            try await first.setHostSetting("https://a.example", named: "public-url")
            try await second.setHostSetting("https://b.example", named: "public-url")
            #expect(try await first.hostSetting(named: "public-url") == "https://b.example")
        }
    }

    func codesRedeemOnce(_ subject: Subject) async throws {
        let now = Self.now
        let first = subject.store
        let user = try await first.createUser(name: "frank", displayName: "Frank", passwordHash: .unusable)
        let code = AuthorizationCodeRecord(
            digest: SecretDigest(of: "code-1"), clientID: "office", redirectURI: "https://localhost", redirectURIRequired: true,
            userID: user.id, scope: "wopi", codeChallenge: nil, sessionContextDigest: SecretDigest(of: "sc"), grantID: "grant-1",
            createdAt: now, expiresAt: now.addingTimeInterval(300), redeemedAt: nil)
        try await first.storeAuthorizationCode(code)
        try await subject.withSecondHost { second in
            #expect(try await second.authorizationCode(digest: code.digest) == code)
            let refresh = Self.token("refresh-1", .refresh, user: user.id)
            let access = Self.token("access-1", .access, user: user.id)
            let redeemed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.redeemAuthorizationCode(digest: code.digest, issuing: [access, refresh], now: now) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(redeemed.filter { $0 }.count == 1, "exactly one redemption wins: \(redeemed)")
            #expect(try await first.authorizationCode(digest: code.digest)?.redeemedAt == now)
            #expect(try await second.oauthToken(digest: access.digest) == access)

            let successor = Self.token("refresh-2", .refresh, user: user.id)
            #expect(try await second.rotateRefreshToken(digest: refresh.digest, issuing: [successor], now: now))
            #expect(try await first.rotateRefreshToken(digest: refresh.digest, issuing: [Self.token("refresh-3", .refresh, user: user.id)], now: now) == false)
            #expect(try await first.oauthToken(digest: SecretDigest(of: "refresh-3")) == nil, "a refused rotation stores nothing")
            #expect(try await first.rotateRefreshToken(digest: access.digest, issuing: [], now: now) == false, "an access token does not rotate")

            try await first.revokeGrant("grant-1", now: now.addingTimeInterval(5))
            #expect(try await second.oauthToken(digest: successor.digest)?.revokedAt == now.addingTimeInterval(5))
            #expect(try await second.oauthToken(digest: refresh.digest)?.revokedAt == now, "an earlier revocation keeps its time")

            try await second.removeExpiredAuthorizationRecords(before: now.addingTimeInterval(3601))
            #expect(try await first.authorizationCode(digest: code.digest) == nil)
            #expect(try await first.oauthToken(digest: access.digest) == nil)
            #expect(try await first.oauthToken(digest: successor.digest) != nil, "a refresh token lasts longer")

            _ = try await first.removeUser(id: user.id)
            #expect(try await second.oauthToken(digest: successor.digest) == nil, "a removed user's tokens go with them")
        }
    }

    private static func token(_ secret: String, _ kind: OAuthTokenRecord.Kind, user: ResourceID) -> OAuthTokenRecord {
        OAuthTokenRecord(digest: SecretDigest(of: secret), kind: kind, grantID: "grant-1", clientID: "office", userID: user, scope: "wopi",
                         sessionContextDigest: nil, createdAt: now, expiresAt: now.addingTimeInterval(kind == .access ? 3600 : 86400), revokedAt: nil)
    }
}
