import ArgumentParser
import Foundation
import WOPIValidator

/// `wopi validator`: get Microsoft's validator definitions, and see which ones `validate` uses.
struct ValidatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validator",
        abstract: "Fetch Microsoft's WOPI validator definitions (TestCases.xml and its JSON schemas), or show which are in use.",
        discussion: """
            `validate` and `check-host` look for the definitions in this order: --testcases, $WOPI_VALIDATOR_DIR, \
            $XDG_DATA_HOME/wopikit/wopi-validator (default ~/.local/share/wopikit/wopi-validator), then \
            share/wopikit/wopi-validator beside the binary's folder.
            """,
        subcommands: [Fetch.self, Show.self]
    )

    /// `wopi validator fetch`.
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download the definitions of microsoft/wopi-validator-core at a pinned commit into the XDG data folder.",
            discussion: """
                Downloads TestCases.xml, TestCases.xsd and src/WopiValidator.Core/JsonSchemas/*.json of \
                \(PinnedDefinitions.repository) at \(PinnedDefinitions.commit) (\(PinnedDefinitions.version)), checks each \
                file's SHA-256 against the table built into wopi, and installs them all at once into \
                $XDG_DATA_HOME/wopikit/wopi-validator. A file whose digest differs stops the fetch; nothing is installed.

                --from names any server with the repository's layout (a mirror, or a folder served over HTTP). \
                Another --ref has no checksums in wopi: it is refused unless --insecure-skip-checksums is given, \
                and `wopi validator show` then says the files are not verified.

                Exit status: 0 installed, 1 the download or a checksum failed, 2 bad input.
                """
        )

        @Option(help: ArgumentHelp("The repository's root over HTTP(S). Default: \(PinnedDefinitions.defaultBaseURL(ref: "<ref>"))", valueName: "base-url"))
        var from: String?

        @Option(help: ArgumentHelp("The commit to fetch.", valueName: "commit"))
        var ref: String = PinnedDefinitions.commit

        @Flag(help: "With another --ref: install files no checksum vouches for.")
        var insecureSkipChecksums = false

        func validate() throws {
            _ = try fetcher()
        }

        func run() async throws {
            let destination = DefinitionsLocation.dataHomeFolder(environment: ProcessInfo.processInfo.environment)
            let fetcher = try fetcher()
            do {
                _ = try await fetcher.install(into: destination)
            } catch {
                throw CLIError.Failure(error.description)
            }
            let verified = ref == PinnedDefinitions.commit ? "SHA-256 verified" : "not verified: no checksums for this ref"
            Console.line("installed \(PinnedDefinitions.files.count) files of \(PinnedDefinitions.repository) at \(ref) (\(verified)) into \(destination.path)")
        }

        private func fetcher() throws -> DefinitionsFetcher {
            do {
                return try DefinitionsFetcher(baseURL: from, ref: ref, skipsChecksums: insecureSkipChecksums)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    /// `wopi validator show`.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the definitions folder validate would use, how it was found, and its commit.",
            discussion: "Exit status: 0 found, 2 none found (the line names `wopi validator fetch`)."
        )

        @Option(help: ArgumentHelp("Path to TestCases.xml, as validate takes it.", valueName: "path"))
        var testcases: String?

        func run() throws {
            let location = try DefinitionsLookup.locate(testcases: testcases)
            Console.line("folder: \(location.folder.path) (from \(location.source.rawValue))")
            Console.line("commit: \(location.commit())")
        }
    }
}
