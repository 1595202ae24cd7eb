import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OfficeURLScheme
import WOPICore
import WOPIHost

/// `wopi serve`: run the WOPI host.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the WOPI host on the embedded store.",
        discussion: """
            Serves the WOPI Files, Containers and Ecosystem endpoints under /wopi, from a data folder holding a
            SQLite database and the document bodies. On an empty folder it creates the user `demo` with a
            generated password and three sample documents (.xlsx, .docx, .pptx), and prints how to open them.

            Listens on 127.0.0.1 unless told otherwise. Logs one line per request to stderr, without tokens.
            Stops cleanly on SIGINT or SIGTERM.
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
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard ByteSize.parse(maxFileSize) != nil else { throw ValidationError("--max-file-size '\(maxFileSize)' is not a size like 512M") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level '\(logLevel)' is not a log level") }
        guard tokenLifetime >= 60 else { throw ValidationError("--token-lifetime must be at least 60 seconds") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "wopi")
        let folder = try dataOptions.open()
        let base = try await PublicURLSetting.resolve(publicURL ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(port)", in: folder)
        try await folder.store.setHostSetting(base.absoluteString, named: PublicURLSetting.name)
        let configuration = WOPIHostConfiguration(publicURL: base, maximumFileSize: ByteSize.parse(maxFileSize) ?? 0,
                                                  accessTokenLifetime: TimeInterval(tokenLifetime))
        let backend = try await folder.backend(configuration: configuration)
        let collected = try folder.blobs.collectGarbage(referenced: try await folder.store.referencedBlobs())
        if collected > 0 { logger.notice("removed \(collected) orphaned upload(s)") }

        if let demo = try await DemoProvisioning.provisionIfEmpty(folder) {
            printWelcome(demo, backend: backend)
        }
        logger.notice("WOPI host listening", metadata: ["url": "\(base.absoluteString)", "data": "\(folder.url.path)"])
        let app = WOPIHostApplication.make(backend: backend, host: host, port: port, logger: logger)
        try await app.runService()
    }

    private func printWelcome(_ demo: DemoProvisioning.DemoAccount, backend: WOPIBackend) {
        var lines = [
            "Created the demo user on this new data folder:",
            "  user: \(demo.user.name)   password: \(demo.password)   (shown once; stored hashed)",
            "",
            "Sample documents (open one in Office with the invoke URI; mint a token with the command):",
        ]
        for file in demo.files {
            let app = OfficeApp(fileExtension: String(file.fileExtension.dropFirst())) ?? .word
            let source = backend.wopiSrc(.file(file.id))
            lines.append("  \(file.name)   id \(file.id)")
            lines.append("    WOPISrc: \(source)")
            lines.append("    invoke:  wopi link --app \(app.rawValue) --mode edit --wopi-src \(source) --service WOPIKit --user \(demo.user.id) --name '\(file.name)' --source app")
            lines.append("    token:   wopi token --user \(demo.user.name) --file \(file.id) --data \(dataOptions.data)")
        }
        print(lines.joined(separator: "\n"))
        fflush(stdout) // stdout may be a pipe; the welcome must show before the server blocks
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
