import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi token`: mint a WOPI access token by hand.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Issue a WOPI access token for one user and one file they may open.",
        discussion: """
            Prints one JSON object: access_token, access_token_ttl (expiry in milliseconds since the Unix epoch,
            as WOPI defines it), wopi_src and role (owner, editor or viewer). The token opens only that file, for
            that user, until it expires. The user must own the file or have it, or a folder above it, shared with
            them (`wopi shares add`); what the token may do is their role at each request, not when it was issued.
            """
    )

    @Option(help: "The user the token acts for.") var user: String
    @Option(help: "The file id (from `wopi files add`).") var file: String
    @Option(help: "Lifetime in seconds (default 36000, ten hours).") var lifetime: Int = 36000
    @Option(help: "Base URL for wopi_src.") var publicURL: String?
    @OptionGroup var dataOptions: DataOptions

    func validate() throws {
        guard ResourceID(file) != nil else { throw ValidationError("file id '\(file)' is not a valid id") }
        guard (60...30 * 24 * 3600).contains(lifetime) else { throw ValidationError("--lifetime must be between 60 seconds and 30 days") }
    }

    func run() async throws {
        try await dataOptions.withStorage { storage in
            let base = try await PublicURLSetting.resolve(publicURL, in: storage)
            let backend = try await storage.backend(configuration: WOPIHostConfiguration(publicURL: base, accessTokenLifetime: TimeInterval(lifetime)))
            guard let caller = try await storage.store.user(named: user) else { throw CLIError.InvalidInput("no user named '\(user)'") }
            guard let id = ResourceID(file), let access = try await storage.store.fileAccess(id, by: caller.id), access.file != nil else {
                throw CLIError.InvalidInput("no file with id '\(file)'")
            }
            guard let role = access.role else { throw CLIError.InvalidInput("'\(user)' may not open file '\(file)': it is neither theirs nor shared with them") }
            let (token, claims) = backend.issueToken(user: caller.id, resource: .file(id))
            try await storage.audit(AuditEvent(.tokenIssued, user: caller.name, file: id.rawValue,
                                               details: ["role": role.rawValue, "expires_at": AuditEvent.timeText(claims.expiresAt), "via": "cli"]))
            try printJSON(["access_token": token, "access_token_ttl": claims.accessTokenTTL, "wopi_src": backend.wopiSrc(.file(id)),
                           "role": role.rawValue], isCredential: true)
        }
    }
}
