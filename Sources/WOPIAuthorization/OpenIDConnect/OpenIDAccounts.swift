import Foundation
import WOPICore
import WOPIHost

/// The account of a person the provider vouched for: the one linked to their (issuer, `sub`), or a new one
/// made on their first sign-in. Never matched by email or name: a local account `alice` and a provider's
/// `alice` are different people until an operator links them (`wopi users link`).
struct OpenIDAccounts: Sendable {
    let store: any WOPIStore & IdentityLinkStore
    let backend: WOPIBackend

    /// The linked account, or a new one named after the username claim (then `sub`), with a suffix when
    /// that name is taken, and shown as the `name` claim (then the username).
    func account(for identity: OpenIDIdentity) async throws -> UserRecord {
        if let user = try await store.user(issuer: identity.issuer, subject: identity.subject) { return user }
        let base = Self.accountName(identity.username ?? identity.subject) ?? Self.accountName(identity.subject) ?? "user"
        let displayName = Self.displayName(identity.displayName ?? identity.username ?? base)
        var attempt = 0
        while true {
            let name = attempt == 0 ? base : "\(base.prefix(56))-\(Base64URL.randomToken(byteCount: 6).lowercased().filter { $0.isLetter || $0.isNumber }.prefix(6))"
            do {
                let user = try await store.createUser(name: name, displayName: displayName, issuer: identity.issuer, subject: identity.subject,
                                                      now: backend.configuration.now())
                backend.audit(.userAdded, user: user.name, details: ["issuer": identity.issuer, "via": "oidc"])
                return user
            } catch WOPIStoreError.nameTaken where attempt < 4 {
                attempt += 1
            } catch WOPIStoreError.notAllowed {
                // The same person's first sign-in on another tab or host won the race: theirs is the account.
                if let user = try await store.user(issuer: identity.issuer, subject: identity.subject) { return user }
                throw WOPIStoreError.notAllowed("the identity could not be linked")
            }
        }
    }

    /// `claim` as an account name `wopi users add` would accept (letters, digits, `._-@`, 1 to 64), or `nil`.
    static func accountName(_ claim: String) -> String? {
        let kept = String(claim.filter { $0.isLetter || $0.isNumber || "._-@".contains($0) }.prefix(64))
        return kept.isEmpty ? nil : kept
    }

    /// `claim` without control characters, at most 128 characters.
    static func displayName(_ claim: String) -> String {
        let cleaned = String(claim.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.prefix(128).map(Character.init))
        return cleaned.trimmingCharacters(in: .whitespaces).isEmpty ? "user" : cleaned
    }
}
