import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import WOPIBlobStoreS3
import WOPICore
import WOPIHost
import WOPIStorePostgres
import WOPIStoreSQLite

/// `--data DIR`, `--database URL` and `--blobs DIR|s3://…`: where every command that works on a host's storage finds it.
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

    @Option(name: .long, help: ArgumentHelp("""
        Where document bodies live (env WOPI_BLOBS): a folder (default: blobs/ in --data), or an S3-compatible bucket \
        as s3://BUCKET[/PREFIX]?endpoint=URL&region=R, with keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or \
        --s3-credentials. Hosts sharing a database share it. The storage records the store it is first opened with \
        (never the keys) and refuses any other: move bodies with wopi blobs migrate --to.
        """, valueName: "dir|s3-url"))
    var blobs: String?

    @Option(name: .long, help: ArgumentHelp("""
        A file with the S3 keys for --blobs s3://…, in the AWS shared-credentials format: aws_access_key_id and \
        aws_secret_access_key under [default]. Without it, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
        """, valueName: "file"))
    var s3Credentials: String?

    @Option(name: .long, help: ArgumentHelp("""
        How long one call to the S3 server may take, in seconds, before the request that made it fails with 503 and its \
        save is abandoned (env WOPI_S3_TIMEOUT; default 30). Each part of a large upload is one call.
        """, valueName: "seconds"))
    var s3Timeout: String?

    /// The environment variable that bounds one S3 call when `--s3-timeout` is absent.
    static let s3TimeoutVariable = "WOPI_S3_TIMEOUT"

    /// The environment variable that names the database when `--database` is absent.
    static let databaseVariable = "WOPI_DATABASE_URL"
    /// The environment variable that names the blob store when `--blobs` is absent.
    static let blobsVariable = "WOPI_BLOBS"

    func validate() throws {
        do {
            _ = try databaseURL()
            _ = try blobStoreAddress()
            _ = try s3CallTimeout()
        } catch let error as CLIError.InvalidInput { throw ValidationError(error.description) }
    }

    /// `--blobs`, else `WOPI_BLOBS`; `nil` for the default folder.
    func blobsSetting(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        blobs ?? environment[Self.blobsVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `--s3-timeout`, else `WOPI_S3_TIMEOUT`, else the store's default.
    func s3CallTimeout(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TimeAmount {
        guard let text = s3Timeout ?? environment[Self.s3TimeoutVariable].flatMap({ $0.isEmpty ? nil : $0 }) else { return S3BlobStore.defaultTimeout }
        guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
            throw CLIError.InvalidInput("\(s3Timeout == nil ? Self.s3TimeoutVariable : "--s3-timeout"): '\(text)' is not a number of seconds from 0 to 3600")
        }
        return .nanoseconds(Int64(seconds * 1e9))
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

    /// The data folder, absolute.
    var dataFolder: URL { URL(fileURLWithPath: data, isDirectory: true).standardizedFileURL }

    /// The store `--blobs` (or `WOPI_BLOBS`) names, else the default folder, `blobs/` in `--data`.
    func blobStoreAddress(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> BlobStoreAddress {
        guard let text = blobsSetting(environment: environment) else { return .folder(dataFolder.appendingPathComponent("blobs", isDirectory: true)) }
        do { return try BlobStoreAddress(parsing: text) } catch {
            throw CLIError.InvalidInput("\(blobs == nil ? Self.blobsVariable : "--blobs"): \(error)")
        }
    }

    /// Opens the storage, reporting a failure as one line: a bad or unreachable database or blob store is invalid input (exit 2).
    /// `connections` bounds a PostgreSQL pool (a host's default when `nil`).
    ///
    /// The database records where its bodies live: the first open records the store it is given, and an open with
    /// another one stops (exit 2) before it reaches that store, so no body is ever written to, or looked for in, the
    /// wrong place.
    func open(connections: Int? = nil, logger: Logger = Logger(label: "wopi.storage")) async throws -> HostStorage {
        let url = try databaseURL()
        let address = try blobStoreAddress()
        _ = try s3CallTimeout()
        let (store, closeStore) = try await openMetadata(database: url, connections: connections, logger: logger)
        do {
            let recordFolder = url == nil ? dataFolder : nil
            let refusal = { (recorded: BlobStoreAddress) in
                CLIError.InvalidInput(BlobStoreRecord.mismatch(recorded: recorded, given: address, givenExplicitly: blobsSetting() != nil))
            }
            let recorded = try await BlobStoreRecord.read(in: store, dataFolder: recordFolder)
            if let recorded, !recorded.isSame(as: address) { throw refusal(recorded) }
            let (blobs, closeBlobs) = try await openBlobStore(at: address)
            // Recorded only once the store opened: a bucket that could not be reached is not yet the storage's.
            if recorded == nil {
                let winner: BlobStoreAddress
                do { winner = try await BlobStoreRecord.recordIfAbsent(address, in: store, dataFolder: recordFolder) } catch {
                    await closeBlobs()
                    throw error
                }
                if !winner.isSame(as: address) {
                    await closeBlobs()
                    throw refusal(winner)
                }
            }
            return HostStorage(store: store, blobs: blobs, close: {
                await closeStore()
                await closeBlobs()
            })
        } catch {
            await closeStore()
            throw error
        }
    }

    /// Opens the body store at `address` (a folder is created if missing; a bucket must answer with the keys of
    /// `--s3-credentials` or the environment); `close` releases its connections.
    func openBlobStore(at address: BlobStoreAddress) async throws -> (store: any KeyedBlobStore, close: @Sendable () async -> Void) {
        let location: S3Location
        switch address {
        case .folder(let folder):
            do { return (try FileSystemBlobStore(folder: folder), {}) } catch {
                throw CLIError.Failure("cannot use the blob folder '\(folder.path)': \(error)")
            }
        case .bucket(let bucket):
            location = bucket
        }
        let credentials: S3Credentials
        do {
            if let file = s3Credentials {
                credentials = try S3Credentials.load(file: file)
            } else if let fromEnvironment = S3Credentials.fromEnvironment() {
                credentials = fromEnvironment
            } else {
                throw CLIError.InvalidInput("no S3 credentials for bucket '\(location.bucket)': set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass --s3-credentials FILE")
            }
        } catch let error as S3BlobStoreError {
            throw CLIError.InvalidInput(error.description)
        }
        let http = S3BlobStore.makeHTTPClient()
        do {
            let store = try await S3BlobStore.connect(to: location, credentials: credentials, http: http, callTimeout: try s3CallTimeout())
            return (store, { try? await http.shutdown() })
        } catch {
            try? await http.shutdown()
            if let error = error as? S3BlobStoreError { throw CLIError.InvalidInput("blob store: \(error)") }
            throw error
        }
    }

    /// Opens the metadata store: PostgreSQL at `url`, else SQLite in the data folder.
    private func openMetadata(database url: PostgresDatabaseURL?, connections: Int?,
                              logger: Logger) async throws -> (store: any WOPIStore & AuthorizationStore, close: @Sendable () async -> Void) {
        do {
            guard let url else { return (try SQLiteStore(dataFolder: dataFolder), {}) }
            let store = try await PostgresStore.connect(to: url, maximumConnections: connections ?? PostgresStore.defaultConnections, logger: logger)
            return (store, { await store.close() })
        } catch let error as PostgresStoreError {
            throw CLIError.InvalidInput("\(error)")
        } catch let error as StoreSchemaError {
            throw CLIError.Failure("\(error)")
        } catch {
            throw CLIError.Failure("cannot open \(url.map { "the database \($0) or " } ?? "")the data folder '\(data)': \(error)")
        }
    }

    /// Opens the storage, runs `body` with it, and closes it again, also when `body` throws.
    ///
    /// A command's queries run one after another, so it opens two connections, not a host's pool, and
    /// the driver's routine notices (a connection still opening when the command closes it) stay out
    /// of the command's output; warnings and errors still show.
    func withStorage<Result>(_ body: (HostStorage) async throws -> Result) async throws -> Result {
        var logger = Logger(label: "wopi.storage")
        logger.logLevel = .warning
        return try await open(connections: 2, logger: logger).closing(after: body)
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
