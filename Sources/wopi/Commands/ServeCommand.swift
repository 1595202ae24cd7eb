import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOPosix
import OfficeURLScheme
import WOPIAuthorization
import WOPICore
import WOPIHost
import WOPIOpenIDConnect
import WOPIStoreSQLite

/// `wopi serve`: run the WOPI host.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the WOPI host.",
        discussion: """
            Serves the WOPI Files, Containers and Ecosystem endpoints under /wopi, and Office sign-in (the OAuth 2.0
            server under /oauth2 and the bootstrapper at /wopibootstrapper), from a data folder holding a
            SQLite database and the document bodies. On empty storage it creates the user `demo` with a
            generated password and three sample documents (.xlsx, .docx, .pptx), and prints how to open them;
            the password and a generated Office client secret go to first-start-secrets.txt in the data folder
            (mode 0600), never to the output. Files and folders it creates are private (0600, 0700).

            More than one host: give each the same --database postgres://… (or WOPI_DATABASE_URL) and the same
            --blobs folder (a shared mount), put them behind a load balancer, and pass its address as --public-url.

            Listens on 127.0.0.1 unless told otherwise. Logs one line per request to stderr, without tokens.
            Stops cleanly on SIGINT or SIGTERM, letting requests in flight finish (--drain-timeout).

            Every option can also come from a WOPI_* environment variable (WOPI_PORT, WOPI_MAX_FILE_SIZE, …)
            or a JSON --config file keyed by option name; flags win over the environment, which wins over
            the file. GET /health/live and /health/ready answer probes; --metrics-port serves Prometheus
            metrics; request headers over 8 KiB each or 32 KiB in all get 431.
            """
    )

    @Option(help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(help: "The port to listen on.") var port: Int = 8080
    @OptionGroup var dataOptions: DataOptions
    @Option(help: ArgumentHelp("The URL clients reach the host at, if not http://HOST:PORT (e.g. behind a TLS proxy).", valueName: "url"))
    var publicURL: String?
    @Option(help: ArgumentHelp("The largest document accepted, in bytes; K, M and G suffixes allowed.", valueName: "size"))
    var maxFileSize: String = "512M"
    @Option(help: "Lifetime of WOPI access tokens, in seconds.") var tokenLifetime: Int = 36000
    @Option(help: "Close a connection that sends nothing for this many seconds, even mid-upload.") var idleTimeout: Int = 60
    @Option(help: ArgumentHelp("""
        Threads that read and write connections; Swift's own pool (one thread per core) runs the requests. \
        Default: half the cores, at least 1.
        """, valueName: "count"))
    var eventLoops: Int = WOPIHostApplication.defaultEventLoopCount
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String = "info"
    @OptionGroup(title: "Office sign-in") var signIn: OfficeSignInOptions
    @OptionGroup(title: "OpenID Connect sign-in") var openID: OpenIDConnectOptions
    @OptionGroup(title: "Proof keys") var proofKeyOptions: ProofKeyOptions
    @Option(name: .customLong("wopi-client"), help: ArgumentHelp("""
        A browser editor files open in, as NAME=DISCOVERY_URL (e.g. collabora=http://127.0.0.1:9980/hosting/discovery); \
        repeat for several. Its discovery is read at start (a failure stops the start) and every 12 hours.
        """, valueName: "name=url"))
    var wopiClients: [String] = []
    @OptionGroup(title: "Operations") var operations: OperationsOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard ByteSize.parse(maxFileSize) != nil else { throw ValidationError("--max-file-size '\(maxFileSize)' is not a size like 512M") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level '\(logLevel)' is not a log level") }
        guard tokenLifetime >= 60 else { throw ValidationError("--token-lifetime must be at least 60 seconds") }
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be between 1 and 3600 seconds") }
        guard (1...256).contains(eventLoops) else { throw ValidationError("--event-loops must be between 1 and 256") }
        for client in wopiClients {
            do { _ = try WebClientSpec(argument: client) } catch { throw ValidationError(error.description) }
        }
    }

    func run() async throws {
        SQLiteStore.configureProcess() // before any database opens
        // Options from flags, then WOPI_* environment variables, then --config; JSON logs.
        if !ServeSettings.isResolved {
            let arguments: [String]
            do {
                arguments = try await ServeSettings.resolve(commandLine: ServeSettings.commandLineArguments(), configFile: operations.config,
                                                            environment: ProcessInfo.processInfo.environment)
            } catch let problem as ServeSettings.Problem {
                throw CLIError.InvalidInput(problem.description)
            }
            let resolved = try Self.parse(arguments)
            try await ServeSettings.$isResolved.withValue(true) { try await resolved.run() }
            return
        }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        operations.bootstrapLogging(level: level)
        let logger = Logger(label: "wopi")
        // The identity provider first: an issuer that cannot be used stops the start before any storage is touched.
        let provider = try await openID.provider(logger: logger)
        try await dataOptions.open(logger: logger).closing { try await serve(on: $0, provider: provider, logger: logger) }
    }

    private func serve(on folder: HostStorage, provider: OpenIDConnectClient?, logger: Logger) async throws {
        let base = try await PublicURLSetting.resolve(publicURL ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(port)", in: folder)
        // Links only with an address clients can reach: a wildcard bind address is none, so it is neither printed
        // nor recorded for the other commands' links.
        let isReachable = publicURL != nil || !Self.wildcardHosts.contains(host)
        if isReachable { try await folder.store.setHostSetting(base.absoluteString, named: PublicURLSetting.name) }
        var configuration = WOPIHostConfiguration(publicURL: base, maximumFileSize: ByteSize.parse(maxFileSize) ?? 0,
                                                  accessTokenLifetime: TimeInterval(tokenLifetime))
        let signInSetup = try await signIn.resolve(in: folder)
        configuration.officeRegistration = signInSetup.registration
        // What `wopi onboarding` reads back through the store.
        try await OnboardingSettings.record(signInSetup.registration, in: folder.store)
        let monitor = try operations.monitor(store: folder.store, logger: logger)
        configuration.monitor = monitor
        configuration.keepVersions = operations.keepVersions
        try await folder.store.setHostSetting(String(operations.keepVersions), named: OperationsOptions.keepVersionsSetting)
        configuration.webClients = try await loadWebClients(logger: logger)
        if let provider {
            configuration.openIDSignIn = openID.signIn(through: provider)
            logger.notice("OpenID Connect sign-in", metadata: ["issuer": "\(provider.issuer)", "client_id": "\(provider.configuration.clientID)",
                                                               "redirect_uri": "\(base.absoluteString)\(OpenIDSignIn.callbackPath)",
                                                               "passwords": "\(openID.only ? "off" : "on")",
                                                               "app_client_id": "\(openID.appClientID ?? "none")"])
        }
        let backend = try await folder.backend(configuration: configuration)
        // Orphaned bodies and unfinished uploads: swept before the host listens, and every hour while it runs.
        let orphans = OrphanedBodySweep(store: folder.store, blobs: folder.blobs, logger: logger)
        await orphans.sweep()
        let sweep = Task { await orphans.run() }
        defer { sweep.cancel() }

        let demo = try await DemoProvisioning.provisionIfEmpty(folder)
        var secrets = FirstStartSecrets()
        if let demo { secrets.demoUser = (demo.user.name, demo.password) }
        if let secret = signInSetup.generatedSecret { secrets.officeClient = (signInSetup.registration.clientID, secret) }
        let secretsFile = secrets.isEmpty ? nil : try secrets.write(into: URL(fileURLWithPath: dataOptions.data, isDirectory: true).standardizedFileURL)
        let links = isReachable ? base : nil
        if let demo { printWelcome(demo, backend: backend, secretsFile: secretsFile, links: links) }
        let demoUser = try await folder.store.user(named: DemoProvisioning.userName)
        Console.unmasked(Self.webFrontLine(base: links, host: host, demoUser: demoUser?.name, passwordFile: demo == nil ? nil : secretsFile))
        if let clients = configuration.webClients {
            Console.unmasked(Self.webClientLines(await clients.all).joined(separator: "\n"))
        }
        signInSetup.report(publicURL: links, secretsFile: secretsFile, logger: logger)
        logger.notice("WOPI host listening", metadata: ["url": "\(base.absoluteString)", "blobs": "\(folder.blobs.location)",
                                                       "store": "\(dataOptions.usesDatabase ? "postgresql" : "sqlite")"])
        let proofKeys = try await proofKeyOptions.loadCache(logger: logger)
        if proofKeys != nil { logger.notice("checking WOPI proof keys", metadata: ["discovery": "\(proofKeyOptions.discovery ?? "")"]) }
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: eventLoops)
        let app = WOPIHostApplication.make(backend: backend, proofKeys: proofKeys, extensions: [AuthorizationRoutes()], host: host, port: port,
                                           idleTimeout: .seconds(idleTimeout), eventLoops: eventLoops, logger: logger)
        // Discovery is read again every 12 hours while the host runs.
        let refresh = Task { [clients = configuration.webClients] in await clients?.keepFresh() }
        defer { refresh.cancel() }
        // Metrics port and draining on SIGTERM.
        do {
            let trash = TrashRetention(store: folder.store, blobs: folder.blobs, days: operations.trashDays, monitor: monitor, logger: logger)
            try await operations.run(app, host: host, port: port, monitor: monitor, trash: trash, logger: logger)
        } catch {
            try? await eventLoops.shutdownGracefully()
            throw error
        }
        try await eventLoops.shutdownGracefully()
    }

    /// The browser editors of `--wopi-client`, each discovery read once; `nil` when there are none.
    private func loadWebClients(logger: Logger) async throws -> WebClients? {
        guard !wopiClients.isEmpty else { return nil }
        do {
            let specs = try wopiClients.map { text throws(WebClientError) in try WebClientSpec(argument: text) }
            return try await WebClients(specs, logger: logger, fetch: DiscoveryHTTP.fetch(timeout: .seconds(5)))
        } catch {
            throw CLIError.Failure(error.description)
        }
    }

    /// One banner line per browser editor: what it opens, and whether its proofs are checked.
    static func webClientLines(_ clients: [WebClients.Client]) -> [String] {
        clients.map { client in
            let opens = "\(client.actions.extensionCount) extension(s), \(client.actions.mimeTypeCount) MIME type(s)"
            let proofs = client.checksProofs ? "proof keys checked" : "proof keys off: its discovery has none"
            return "Browser editor \(client.name): \(client.spec.discoveryURL.absoluteString)   (\(opens); \(proofs))"
        }
    }

    /// Bind addresses that mean "every interface": no address a client could use in a link.
    static let wildcardHosts: Set<String> = ["0.0.0.0", "::", "[::]"]

    /// The banner line that tells a new operator the host has pages to sign in to, and as whom; with no
    /// address for links (`base` is `nil`), the one line that says they need `--public-url`.
    static func webFrontLine(base: URL?, host: String, demoUser: String?, passwordFile: URL?) -> String {
        guard let base else {
            return "Links need --public-url (or WOPI_PUBLIC_URL): bound to \(host), the host cannot tell the address clients reach it at"
        }
        let address = base.absoluteString.hasSuffix("/") ? base.absoluteString : base.absoluteString + "/"
        guard let demoUser else { return "Web front: \(address)   (sign in with a user made by `wopi users add`)" }
        let password = passwordFile.map { "the password in \($0.path)" } ?? "the password given when this data folder was created"
        return "Web front: \(address)   (sign in as \(demoUser) with \(password))"
    }

    private func printWelcome(_ demo: DemoProvisioning.DemoAccount, backend: WOPIBackend, secretsFile: URL?, links: URL?) {
        let storageOptions = dataOptions.usesDatabase ? "--database '…'" : "--data \(dataOptions.data)"
        var lines = [
            "Created the demo user on this new data folder:",
            "  user: \(demo.user.name)   (its password is in \(secretsFile?.path ?? FirstStartSecrets.fileName), readable by its owner only; stored hashed)",
            "",
            "Sample documents (\(links == nil ? "" : "open one in Office with the invoke URI; ")mint a token with the command):",
        ]
        for file in demo.files {
            lines.append("  \(file.name)   id \(file.id)")
            if links != nil {
                let app = OfficeApp(fileExtension: String(file.fileExtension.dropFirst())) ?? .word
                let source = backend.wopiSrc(.file(file.id))
                lines.append("    WOPISrc: \(source)")
                lines.append("    invoke:  wopi link --app \(app.rawValue) --mode edit --wopi-src \(source) --service WOPIKit --user \(demo.user.id) --name '\(file.name)' --source app")
            }
            lines.append("    token:   wopi token --user \(demo.user.name) --file \(file.id) \(storageOptions)")
        }
        // Written straight to the descriptor: stdout may be a buffered pipe, and the welcome must show before the server blocks.
        Console.unmasked(lines.joined(separator: "\n"))
    }
}

/// Sizes like `512M`, `1G`, `4096`.
enum ByteSize {
    static func parse(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        guard let last = text.uppercased().last else { return nil }
        if let unit = units[last] {
            return Int64(text.dropLast()).flatMap { $0 > 0 && $0 < Int64.max / unit ? $0 * unit : nil }
        }
        return Int64(text).flatMap { $0 > 0 ? $0 : nil }
    }
}

// The registration options of `wopi serve` and how they are resolved.

/// `--office-client-id`, `--office-client-secret`, `--office-redirect-uri`, `--provider-id`, `--ios-url-scheme`,
/// each also read from its `WOPI_*` environment variable when the option is absent.
struct OfficeSignInOptions: ParsableArguments {
    @Option(name: .customLong("office-client-id"),
            help: ArgumentHelp("The client_id Office is registered with (env WOPI_OFFICE_CLIENT_ID). Generated and kept in the data folder if absent.",
                               valueName: "id"))
    var officeClientID: String?
    @Option(name: .customLong("office-client-secret"),
            help: ArgumentHelp("Office's client secret (env WOPI_OFFICE_CLIENT_SECRET, preferred: arguments show in process lists). Generated on a fresh data folder and kept there as a SHA-256 digest.",
                               valueName: "secret"))
    var officeClientSecret: String?
    @Option(name: .customLong("office-redirect-uri"),
            help: ArgumentHelp("The redirect URI registered for Office (env WOPI_OFFICE_REDIRECT_URI).", valueName: "uri"))
    var officeRedirectURI: String?
    @Option(name: .customLong("provider-id"),
            help: ArgumentHelp("The providerId Microsoft assigned, sent in the bootstrapper challenge (env WOPI_PROVIDER_ID).", valueName: "id"))
    var providerID: String?
    @Option(name: .customLong("ios-url-scheme"),
            help: ArgumentHelp("A URL scheme of your iOS app, for app-to-app sign-in; repeat in the order Office should try them (env WOPI_IOS_URL_SCHEMES, comma-separated).",
                               valueName: "scheme"))
    var iOSURLSchemes: [String] = []

    static let clientIDSetting = "office-client-id"
    static let secretDigestSetting = "office-client-secret-sha256"

    /// The registration to serve with, and what to tell the operator.
    struct Setup {
        var registration: OfficeRegistration
        /// The secret, only when it was generated just now (to hand over once, in ``FirstStartSecrets``).
        var generatedSecret: String?

        /// Logs the registration; when the secret was generated just now, prints the values to give Microsoft, the
        /// secret itself only as the file it is in. Without a public URL the addresses are paths.
        func report(publicURL: URL?, secretsFile: URL?, logger: Logger) {
            let base = publicURL?.absoluteString ?? ""
            guard generatedSecret != nil else {
                logger.notice("Office sign-in", metadata: ["client_id": "\(registration.clientID)", "bootstrapper": "\(base)/wopibootstrapper"])
                return
            }
            let schemes = registration.iOSURLSchemes
            var lines = [
                "Office sign-in registration (new on this data folder; give these values to Microsoft when onboarding):",
                "  client id:       \(registration.clientID)",
                "  client secret:   in \(secretsFile?.path ?? FirstStartSecrets.fileName), readable by its owner only (stored as a SHA-256 digest)",
                "  redirect URI:    \(registration.redirectURI)",
                "  bootstrapper:    \(base)/wopibootstrapper",
                "  authorization:   \(base)/oauth2/authorize",
                "  token issuance:  \(base)/oauth2/token",
            ]
            if let providerID = registration.providerID { lines.append("  provider id:     \(providerID)") }
            lines.append("  iOS URL schemes: \(schemes.isEmpty ? "(none; add --ios-url-scheme for app-to-app sign-in)" : schemes.joined(separator: ", "))")
            lines.append("  your app signs in as client \(FirstPartyApp.clientID) with PKCE, redirect URI \(FirstPartyApp.redirectURI(scheme: schemes.first ?? FirstPartyApp.fallbackScheme))")
            // Written straight to the descriptor: stdout may be a pipe, and this must show before the server blocks.
            Console.unmasked(lines.joined(separator: "\n"))
        }
    }

    func validate() throws {
        do { _ = try registration(clientID: officeClientID ?? "office", secret: officeClientSecret.map { .plain($0) } ?? .digest(SecretDigest(of: "x")),
                                  redirectURI: officeRedirectURI, providerID: providerID, schemes: iOSURLSchemes) } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Options, then environment, then the data folder; generates what is still missing.
    func resolve(in folder: HostStorage, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Setup {
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let schemes = !iOSURLSchemes.isEmpty ? iOSURLSchemes
            : (env("WOPI_IOS_URL_SCHEMES") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var clientID = officeClientID ?? env("WOPI_OFFICE_CLIENT_ID")
        if clientID == nil {
            // Create-if-absent in one step: hosts starting together on one database must agree on one id.
            let generated = "wopikit-office-" + Base64URL.randomToken(byteCount: 6).lowercased().filter { $0.isLetter || $0.isNumber }
            clientID = String(decoding: try await folder.store.hostSecret(named: Self.clientIDSetting) { Data(generated.utf8) }, as: UTF8.self)
        }
        var secret: Secret
        var generatedSecret: String?
        if let given = officeClientSecret ?? env("WOPI_OFFICE_CLIENT_SECRET") {
            secret = .plain(given)
        } else {
            let generated = Base64URL.randomToken()
            let generatedDigest = SecretDigest(of: generated).hex
            let stored = String(decoding: try await folder.store.hostSecret(named: Self.secretDigestSetting) { Data(generatedDigest.utf8) }, as: UTF8.self)
            guard let digest = SecretDigest(hex: stored) else { throw CLIError.Failure("the stored Office client secret digest is unreadable") }
            secret = .digest(digest)
            if stored == generatedDigest {
                secret = .plain(generated)
                generatedSecret = generated
            }
        }
        do {
            let registration = try registration(clientID: clientID ?? "", secret: secret, redirectURI: officeRedirectURI ?? env("WOPI_OFFICE_REDIRECT_URI"),
                                                providerID: providerID ?? env("WOPI_PROVIDER_ID"), schemes: schemes)
            return Setup(registration: registration, generatedSecret: generatedSecret)
        } catch {
            throw CLIError.InvalidInput("\(error)")
        }
    }

    enum Secret { case plain(String), digest(SecretDigest) }

    private func registration(clientID: String, secret: Secret, redirectURI: String?, providerID: String?, schemes: [String]) throws -> OfficeRegistration {
        switch secret {
        case .plain(let text):
            return try OfficeRegistration(clientID: clientID, clientSecret: text, redirectURI: redirectURI ?? OfficeRegistration.defaultRedirectURI,
                                          providerID: providerID, iOSURLSchemes: schemes)
        case .digest(let digest):
            return try OfficeRegistration(clientID: clientID, clientSecretDigest: digest, redirectURI: redirectURI ?? OfficeRegistration.defaultRedirectURI,
                                          providerID: providerID, iOSURLSchemes: schemes)
        }
    }
}
