import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi token`: mint a WOPI access token by hand.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Issue a WOPI access token for one user and one file.",
        discussion: """
            Prints one JSON object: access_token, access_token_ttl (expiry in milliseconds since the Unix epoch,
            as WOPI defines it) and wopi_src. The token opens only that file, for that user, until it expires.
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
            guard let owner = try await storage.store.user(named: user) else { throw CLIError.InvalidInput("no user named '\(user)'") }
            guard let id = ResourceID(file), let record = try await storage.store.file(id: id) else { throw CLIError.InvalidInput("no file with id '\(file)'") }
            guard record.ownerID == owner.id else { throw CLIError.InvalidInput("file '\(file)' does not belong to '\(user)'") }
            let (token, claims) = backend.issueToken(user: owner.id, resource: .file(id))
            try printJSON(["access_token": token, "access_token_ttl": claims.accessTokenTTL, "wopi_src": backend.wopiSrc(.file(id))])
        }
    }
}
