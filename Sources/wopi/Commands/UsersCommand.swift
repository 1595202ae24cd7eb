import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi users`: manage the people who sign in to the host.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Add, list and remove the users who sign in to the host, set their passwords, and see or end their web sessions.",
        discussion: "Works while `wopi serve` runs on the same storage (data folder or --database).",
        subcommands: [Add.self, List.self, Link.self, Remove.self, Passwd.self, Sessions.self, SignOut.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user who can sign in and own files.",
            discussion: "Prints one JSON object: id, name, rootContainerId. The password is stored as a scrypt hash."
        )

        @Argument(help: "The sign-in name (letters, digits, . _ - @).")
        var name: String

        @Option(help: "The user's password (at least 8 characters).")
        var password: String

        @Option(help: "The name Office shows for the user. Defaults to NAME.")
        var displayName: String?

        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard (1...64).contains(name.count), name.allSatisfy({ $0.isLetter || $0.isNumber || "._-@".contains($0) }) else {
                throw ValidationError("user name '\(name)' must be 1 to 64 letters, digits, '.', '_', '-' or '@'")
            }
            guard password.count >= 8 else { throw ValidationError("the password must have at least 8 characters") }
            if let displayName, (try? WOPIName(displayName)) == nil {
                throw ValidationError("display name '\(displayName)' contains characters Office refuses")
            }
        }

        func run() async throws {
            try await dataOptions.withStorage { storage in
                do {
                    let user = try await storage.store.createUser(name: name, displayName: displayName ?? name,
                                                                  passwordHash: try PasswordHash(hashing: password))
                    try await storage.audit(AuditEvent(.userAdded, user: user.name, details: ["via": "cli"]))
                    try printJSON(["id": user.id.rawValue, "name": user.name, "rootContainerId": user.rootContainerID.rawValue])
                } catch WOPIStoreError.nameTaken {
                    throw CLIError.InvalidInput("a user named '\(name)' already exists")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users as JSON lines.",
            discussion: "A user linked to a person at an OpenID Connect provider also has `issuer` and `subject`."
        )
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            let (users, links) = try await dataOptions.withStorage { storage in
                (try await storage.store.users(), try await (storage.store as? any IdentityLinkStore)?.identityLinks() ?? [])
            }
            let linkOf = Dictionary(links.map { ($0.userID, $0) }, uniquingKeysWith: { first, _ in first })
            for user in users {
                var object: [String: Any] = ["id": user.id.rawValue, "name": user.name, "displayName": user.displayName]
                if let link = linkOf[user.id] {
                    object["issuer"] = link.issuer
                    object["subject"] = link.subject
                }
                try printJSON(object)
            }
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Link a user to a person at an OpenID Connect provider.",
            discussion: """
                From then on, signing in with that provider as that person signs in as NAME; the password, if any, keeps                 working unless the host runs with --oidc-only. A person is never matched by email or name: without a link,                 their first sign-in creates a new user. Prints one JSON object: id, name, issuer, subject.
                """
        )

        @Argument(help: "The sign-in name of the user to link.")
        var name: String

        @Option(help: ArgumentHelp("The provider's issuer identifier, exactly as its tokens give it in `iss`.", valueName: "url"))
        var issuer: String

        @Option(help: ArgumentHelp("The person's `sub` at that issuer.", valueName: "sub"))
        var subject: String

        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard let url = URL(string: issuer), url.scheme != nil, url.host != nil else {
                throw ValidationError("--issuer '\(issuer)' is not a URL")
            }
            guard !subject.isEmpty, subject.utf8.count <= 255 else { throw ValidationError("--subject must have 1 to 255 bytes") }
        }

        func run() async throws {
            try await dataOptions.withStorage { storage in
                guard let links = storage.store as? any IdentityLinkStore else { throw CLIError.Failure("this store cannot link users") }
                guard let user = try await storage.store.user(named: name) else { throw CLIError.InvalidInput("no user named '\(name)'") }
                do {
                    try await links.linkIdentity(issuer: issuer, subject: subject, to: user.id, now: Date())
                } catch WOPIStoreError.notAllowed(let why) {
                    throw CLIError.InvalidInput("cannot link '\(name)': \(why)")
                }
                try await storage.audit(AuditEvent(.identityLinked, user: user.name, details: ["issuer": issuer, "via": "cli"]))
                try printJSON(["id": user.id.rawValue, "name": user.name, "issuer": issuer, "subject": subject])
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user with all their files.",
            discussion: "Every access token issued to the user stops working at once."
        )
        @Argument(help: "The sign-in name.") var name: String
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { storage in
                guard let user = try await storage.store.user(named: name) else { throw CLIError.InvalidInput("no user named '\(name)'") }
                for blob in try await storage.store.removeUser(id: user.id) { try? await storage.blobs.delete(blob) }
                try await storage.audit(AuditEvent(.userRemoved, user: user.name, details: ["via": "cli"]))
                try printJSON(["removed": user.name])
            }
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a user a new password; it signs them out of the web front everywhere.",
            discussion: "Prints one JSON object: user, sessionsEnded (the web sessions the change ended). The password is stored as a scrypt hash."
        )
        @Argument(help: "The sign-in name.") var name: String
        @Option(help: "The new password (at least 8 characters).") var password: String
        @OptionGroup var dataOptions: DataOptions

        func validate() throws {
            guard password.count >= 8 else { throw ValidationError("the password must have at least 8 characters") }
        }

        func run() async throws {
            try await dataOptions.withStorage { storage in
                guard let user = try await storage.store.user(named: name) else { throw CLIError.InvalidInput("no user named '\(name)'") }
                let ended = try await storage.store.setPasswordHash(try PasswordHash(hashing: password), for: user.id)
                try await storage.audit(AuditEvent(.passwordChanged, user: user.name, details: ["sessions_ended": String(ended), "via": "cli"]))
                if ended > 0 {
                    try await storage.audit(AuditEvent(.sessionsEnded, user: user.name,
                                                       details: ["count": String(ended), "reason": "password_changed", "via": "cli"]))
                }
                try printJSON(["user": user.name, "sessionsEnded": ended])
            }
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's web sessions.",
            discussion: """
                Prints a JSON array, newest first, of the sessions signed in to the web front that have not ended: \
                created, lastSeen (to the minute) and expires (ISO 8601), and userAgent (the browser at sign-in). \
                The session secrets are never shown; the store keeps only their digests.
                """
        )
        @Argument(help: "The sign-in name.") var name: String
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { storage in
                let (user, sessions) = try await UsersCommand.sessionStore(of: name, in: storage)
                let rows = try await sessions.webSessions(of: user.id, now: Date()).map { session -> [String: Any] in
                    ["created": isoTimestamp(session.createdAt), "lastSeen": isoTimestamp(session.lastSeenAt),
                     "expires": isoTimestamp(session.expiresAt), "userAgent": session.userAgent ?? NSNull()]
                }
                try printJSONArray(rows)
            }
        }
    }

    struct SignOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-out",
            abstract: "End every web session of a user, on every host.",
            discussion: "Their browsers show the sign-in form on their next request. Prints one JSON object: user, ended (how many)."
        )
        @Argument(help: "The sign-in name.") var name: String
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { storage in
                let (user, sessions) = try await UsersCommand.sessionStore(of: name, in: storage)
                let ended = try await sessions.endWebSessions(of: user.id)
                try await storage.audit(AuditEvent(.sessionsEnded, user: user.name, details: ["count": String(ended), "reason": "sign_out", "via": "cli"]))
                try printJSON(["user": user.name, "ended": ended])
            }
        }
    }

    /// The user named `name` and the store of their web sessions; invalid input when there is no such user.
    static func sessionStore(of name: String, in storage: HostStorage) async throws -> (UserRecord, any WebSessionStore) {
        guard let user = try await storage.store.user(named: name) else { throw CLIError.InvalidInput("no user named '\(name)'") }
        guard let sessions = storage.store as? any WebSessionStore else { throw CLIError.InvalidInput("this store keeps no web sessions") }
        return (user, sessions)
    }
}
