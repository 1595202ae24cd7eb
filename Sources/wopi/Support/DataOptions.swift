import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `--data DIR`, shared by every command that works on the embedded store.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data folder: SQLite database and document bodies.", valueName: "dir"))
    var data: String = "./wopi-data"

    /// Opens the folder, reporting a failure as one line.
    func open() throws -> DataFolder {
        do { return try DataFolder(path: data) } catch {
            throw CLIError.Failure("cannot open data folder '\(data)': \(error)")
        }
    }
}

/// The public URL `wopi serve` records in the data folder, so other commands build matching WOPISrc values.
enum PublicURLSetting {
    static let name = "public-url"
    static let fallback = "http://127.0.0.1:8080"

    static func resolve(_ explicit: String?, in folder: DataFolder) async throws -> URL {
        let text: String
        if let explicit {
            text = explicit
        } else {
            text = try await folder.store.hostSetting(named: name) ?? fallback
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw CLIError.InvalidInput("--public-url must be an absolute http(s) URL, got '\(text)'")
        }
        return url
    }
}

/// Prints one JSON object on stdout with sorted keys.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
}
