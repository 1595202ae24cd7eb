import Foundation

/// Where Microsoft's validator definitions are, found the way `wopi validate` and `wopi check-host` look:
///
/// 1. `--testcases PATH` (a TestCases.xml, with `JsonSchemas/` beside it);
/// 2. `$WOPI_VALIDATOR_DIR`;
/// 3. `$XDG_DATA_HOME/wopikit/wopi-validator`, by default `~/.local/share/wopikit/wopi-validator`, where
///    `wopi validator fetch` installs them (XDG Base Directory Specification);
/// 4. `share/wopikit/wopi-validator` beside the binary's folder (`<bindir>/../share/…`), where a package puts them.
public struct DefinitionsLocation: Sendable, Hashable {
    /// Which step of the lookup found the folder.
    public enum Source: String, Sendable, Hashable {
        /// `--testcases`.
        case option = "--testcases"
        /// `$WOPI_VALIDATOR_DIR`.
        case environment = "WOPI_VALIDATOR_DIR"
        /// The XDG data folder.
        case dataHome = "the XDG data folder"
        /// `share/wopikit/wopi-validator` beside the binary.
        case besideExecutable = "beside the binary"
    }

    /// The folder holding the definitions.
    public let folder: URL
    /// The TestCases.xml to load.
    public let testCasesURL: URL
    /// How it was found.
    public let source: Source

    /// The folder `wopi validator fetch` installs into: `$XDG_DATA_HOME/wopikit/wopi-validator`, or
    /// `$HOME/.local/share/wopikit/wopi-validator` when `XDG_DATA_HOME` is unset or not absolute.
    public static func dataHomeFolder(environment: [String: String]) -> URL {
        let base: URL
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = URL(fileURLWithPath: dataHome, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("wopikit/wopi-validator", isDirectory: true)
    }

    /// `<bindir>/../share/wopikit/wopi-validator` for a binary at `executable`.
    public static func besideExecutableFolder(_ executable: URL) -> URL {
        executable.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/wopikit/wopi-validator", isDirectory: true).standardizedFileURL
    }

    /// Finds the definitions; throws ``NotFound`` naming what was searched and `wopi validator fetch`.
    public static func find(testCases: String? = nil, environment: [String: String],
                            executable: URL? = nil) throws(NotFound) -> DefinitionsLocation {
        let fileManager = FileManager.default
        if let testCases {
            let url = URL(fileURLWithPath: testCases).standardizedFileURL
            guard fileManager.fileExists(atPath: url.path) else { throw NotFound(reason: "--testcases '\(testCases)' does not exist") }
            return DefinitionsLocation(folder: url.deletingLastPathComponent(), testCasesURL: url, source: .option)
        }
        if let directory = environment["WOPI_VALIDATOR_DIR"], !directory.isEmpty {
            let folder = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
            let url = folder.appendingPathComponent("TestCases.xml")
            guard fileManager.fileExists(atPath: url.path) else {
                throw NotFound(reason: "WOPI_VALIDATOR_DIR '\(directory)' holds no TestCases.xml")
            }
            return DefinitionsLocation(folder: folder, testCasesURL: url, source: .environment)
        }
        var searched = [(dataHomeFolder(environment: environment), Source.dataHome)]
        if let executable { searched.append((besideExecutableFolder(executable), .besideExecutable)) }
        for (folder, source) in searched where fileManager.fileExists(atPath: folder.appendingPathComponent("TestCases.xml").path) {
            return DefinitionsLocation(folder: folder, testCasesURL: folder.appendingPathComponent("TestCases.xml"), source: source)
        }
        throw NotFound(reason: "Microsoft's WOPI validator definitions are not installed (searched \(searched.map(\.0.path).joined(separator: ", ")))")
    }

    /// The definitions are nowhere the lookup searched.
    public struct NotFound: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was searched or is wrong.
        public let reason: String
        /// One line: the reason and how to get the definitions.
        public var description: String { "\(reason); run `wopi validator fetch`, or set WOPI_VALIDATOR_DIR to a folder holding them" }
    }

    /// The commit the folder holds: the one recorded by `wopi validator fetch`, or the pinned commit when
    /// every file matches its SHA-256.
    public func commit() -> InstalledCommit {
        let recorded = (try? String(contentsOf: folder.appendingPathComponent(PinnedDefinitions.commitFileName), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let mismatches = DefinitionsVerifier.mismatches(in: folder)
        if mismatches.isEmpty { return .pinned }
        if let recorded, !recorded.isEmpty, recorded != PinnedDefinitions.commit { return .unverified(recorded) }
        return .modified(mismatches)
    }

    /// What ``commit()`` found.
    public enum InstalledCommit: Sendable, Hashable, CustomStringConvertible {
        /// Every file is byte for byte the pinned commit's.
        case pinned
        /// Fetched from another commit, without checksums.
        case unverified(String)
        /// Some files are missing or differ from the pinned commit's.
        case modified([String])

        /// One line for `wopi validator show`.
        public var description: String {
            switch self {
            case .pinned:
                "\(PinnedDefinitions.commit) (\(PinnedDefinitions.version)); every file matches its SHA-256"
            case .unverified(let ref):
                "\(ref) (not verified: WOPIKit knows no checksums for it)"
            case .modified(let files):
                "unknown: \(files.joined(separator: ", ")) not as at \(PinnedDefinitions.commit) (\(PinnedDefinitions.version))"
            }
        }
    }
}
