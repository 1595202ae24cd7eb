import ArgumentParser
import Foundation

/// `wopi config`: configuration files for `wopi serve`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check a configuration file for `wopi serve --config`.",
        subcommands: [Check.self]
    )

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report unknown keys and bad values in a serve configuration file.",
            discussion: """
                The file is a JSON object whose keys are `wopi serve` option names without the dashes
                (`port`, `max-file-size`, `keep-versions`, …). Each value is checked exactly as `wopi serve`
                would check the option. Prints "ok: N settings" and exits 0, or prints the problems on one
                stderr line and exits 2.
                """
        )

        @Option(help: ArgumentHelp("The file to check.", valueName: "file")) var config: String

        func run() async throws {
            let result: (settings: Int, problems: [String])
            do { result = try await ServeSettings.check(path: config) } catch let problem as ServeSettings.Problem {
                throw CLIError.InvalidInput(problem.description)
            }
            guard result.problems.isEmpty else {
                throw CLIError.InvalidInput("\(config): " + result.problems.joined(separator: "; "))
            }
            Console.line("ok: \(result.settings) setting\(result.settings == 1 ? "" : "s") in \(config)")
        }
    }
}
