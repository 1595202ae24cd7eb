import ArgumentParser
import Foundation

/// `wopi`: one command for WOPIKit — Office URIs, the WOPI host, the Office simulator, and checks.
@main
struct WOPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wopi",
        abstract: "Open documents from your storage app in Office for iOS, and host them over WOPI.",
        discussion: """
            Office URIs:      link, parse, doctor
            The WOPI host:    serve, users, files, token, activities
            Sign-in:          app-signin
            Office simulator: simulate
            Checks:           validate, validator, proof, check-host, onboarding
            Operations:       locks, config, audit (and files history, files restore)

            Storage: --data DIR (SQLite and bodies), or --database postgres://… (WOPI_DATABASE_URL) with \
            --blobs DIR for several hosts; every host and admin command takes the same options. The storage \
            records its --blobs and refuses another (wopi blobs migrate moves the bodies).

            Exit codes: 0 success, 1 a failure or findings, 2 invalid input (one line on stderr).
            """,
        version: "0.1.0",
        subcommands: [
            LinkCommand.self, ParseCommand.self, DoctorCommand.self,
            ServeCommand.self, UsersCommand.self, FilesCommand.self, TokenCommand.self,
            AppSigninCommand.self,
            SimulateCommand.self,
            ActivitiesCommand.self, SharesCommand.self,
            ValidateCommand.self, ValidatorCommand.self, ProofCommand.self, CheckHostCommand.self, OnboardingCommand.self,
            LocksCommand.self, ConfigCommand.self, AuditCommand.self, TrashCommand.self, BlobsCommand.self,
        ]
    )

    /// Runs the command and maps errors to the exit codes the tool promises: invalid input is
    /// exit 2 with exactly one line on stderr, never a usage dump or a stack trace.
    static func main() async {
        Console.start(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exitCode as ExitCode {
            Foundation.exit(exitCode.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) } // --help, --version
            let message = message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
            Console.line("wopi: error: \(message)", to: .standardError)
            Foundation.exit(code == .validationFailure || error is CLIError.InvalidInput ? 2 : 1)
        }
    }
}

/// Errors the commands throw for the root to report.
enum CLIError {
    /// The input is invalid: exit 2.
    struct InvalidInput: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The command could not do its job (a server refused, a file could not be written): exit 1.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
