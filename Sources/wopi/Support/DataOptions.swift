import ArgumentParser
import Foundation
import Logging
import WOPICore
import WOPIHost

/// `--data DIR`, `--database URL` and `--blobs DIR`: where every command that works on a host's storage finds it.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data folder: the SQLite database (unless --database) and, by default, the document bodies.",
                                            valueName: "dir"))
    var data: String = "./wopi-data"

    @Option(name: .long, help: ArgumentHelp("""
        A PostgreSQL database to keep users, files, locks and sign-ins in instead of SQLite, shared by every host that \
        names it (env WOPI_DATABASE_URL). Add ?sslmode=disable|prefer|require (default: require unless on loopback) \
        or ?host=/socket/dir.
        """, valueName: "postgres://user[:pw]@host[:port]/db"))
    var database: String?

    @Option(name: .long, help: ArgumentHelp("The folder for document bodies (default: blobs/ in --data); hosts sharing a database share it.",
                                            valueName: "dir"))
    var blobs: String?

    /// The environment variable that names the database when `--database` is absent.
    static let databaseVariable = "WOPI_DATABASE_URL"

    func validate() throws {
        do { _ = try databaseURL() } catch let error as CLIError.InvalidInput { throw ValidationError(error.description) }
    }

    /// `--database`, else `WOPI_DATABASE_URL`, parsed; `nil` for the embedded SQLite store.
    func databaseURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresDatabaseURL? {
        guard let text = database ?? environment[Self.databaseVariable].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        do { return try PostgresDatabaseURL(parsing: text) } catch {
            throw CLIError.InvalidInput("\(database == nil ? Self.databaseVariable : "--database"): \(error)")
        }
    }

    /// Whether the storage is PostgreSQL (`--database` or `WOPI_DATABASE_URL`) rather than SQLite in `--data`.
    var usesDatabase: Bool { ((try? databaseURL()) ?? nil) != nil }

    /// Opens the storage, reporting a failure as one line: a bad or unreachable database is invalid input (exit 2).
    func open(logger: Logger = Logger(label: "wopi.storage")) async throws -> HostStorage {
        let url = try databaseURL()
        do {
            return try await HostStorage.open(data: URL(fileURLWithPath: data, isDirectory: true), database: url,
                                              blobs: blobs.map { URL(fileURLWithPath: $0, isDirectory: true) }, logger: logger)
        } catch let error as PostgresStoreError {
            throw CLIError.InvalidInput("\(error)")
        } catch let error as StoreSchemaError {
            throw CLIError.Failure("\(error)")
        } catch {
            throw CLIError.Failure("cannot open \(url.map { "the database \($0) or " } ?? "")the data folder '\(data)': \(error)")
        }
    }

    /// Opens the storage, runs `body` with it, and closes it again, also when `body` throws.
    func withStorage<Result>(_ body: (HostStorage) async throws -> Result) async throws -> Result {
        try await open().closing(after: body)
    }
}

/// The public URL `wopi serve` records in the store, so other commands build matching WOPISrc values.
enum PublicURLSetting {
    static let name = "public-url"
    static let fallback = "http://127.0.0.1:8080"

    static func resolve(_ explicit: String?, in storage: HostStorage) async throws -> URL {
        let text: String
        if let explicit {
            text = explicit
        } else {
            text = try await storage.store.hostSetting(named: name) ?? fallback
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw CLIError.InvalidInput("--public-url must be an absolute http(s) URL, got '\(text)'")
        }
        return url
    }
}

/// Prints one JSON object on stdout with sorted keys; secrets masked unless it is a credential the
/// command exists to hand out (`wopi token`).
func printJSON(_ object: [String: Any], isCredential: Bool = false) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    let text = String(decoding: data, as: UTF8.self)
    if isCredential { Console.unmasked(text) } else { Console.line(text) }
}
