import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO

// The floors of `Benchmarks/host-benchmark.sh`: what this machine allows a Hummingbird route that
// answers a CheckFileInfo-sized JSON body without doing any work, and, with `--postgres`, the same
// route when all it does is read its file's row from PostgreSQL the way WOPIKit's PostgreSQL store
// does: the same pool settings, and concurrent lookups sent together by the store's own
// `StatementBatcher` (this target links that file). WOPIKit is measured against each in the same run.
//
//   floor --port 18490 --body check-file-info.json
//   floor --port 18490 --body check-file-info.json --postgres postgres://wopikit@127.0.0.1:5432/wopi
//
// `--body` names a file holding the JSON to answer with (the script saves a real CheckFileInfo
// answer there, so both bodies have the same size). `GET /wopi/files/:id` answers it, as WOPIKit's
// CheckFileInfo does. With `--postgres`, that route first reads the file's row (404 without one), and
// `POST /wopi/files/:id` is the floor of a Lock or Unlock: it reads the row, then sets or clears its
// lock from `X-WOPI-Lock` and `X-WOPI-Override` in a second batched statement, deciding nothing.

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: floor --port PORT --body FILE [--postgres postgres://USER@HOST:PORT/DATABASE]\n".utf8))
    exit(2)
}

guard let portText = argument("--port"), let port = Int(portText), let bodyPath = argument("--body"),
      let body = FileManager.default.contents(atPath: bodyPath) else { usage() }

let lockHeader = HTTPField.Name("X-WOPI-Lock")!, overrideHeader = HTTPField.Name("X-WOPI-Override")!
let router = Router()
var database: PostgresClient?
if let text = argument("--postgres") {
    guard let url = URLComponents(string: text), url.scheme == "postgres", let host = url.host, let user = url.user,
          case let name = url.path.dropFirst(), !name.isEmpty else { usage() }
    database = PostgresFloor.client(host: host, port: url.port ?? 5432, user: user, database: String(name))
}

if let database {
    let floor = PostgresFloor(client: database)
    router.get("wopi/files/:id") { _, context -> Response in
        guard try await floor.fileExists(context.parameters.require("id")) else { return Response(status: .notFound) }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
    router.post("wopi/files/:id") { request, context -> Response in
        let id = try context.parameters.require("id")
        guard try await floor.fileExists(id) else { return Response(status: .notFound) }
        let lock = request.headers[overrideHeader] == "LOCK" ? request.headers[lockHeader] : nil
        try await floor.setLock(lock, of: id)
        return Response(status: .ok)
    }
} else {
    router.get("wopi/files/:id") { _, _ -> Response in
        // A new buffer per answer, as a real handler would encode one.
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
// The pool runs beside the server, and stops with it on SIGTERM.
if let database { app.addServices(database) }
try await app.runService()

/// A file's row read, and its lock written, in batches, as WOPIKit's PostgreSQL store does.
struct PostgresFloor: Sendable {
    /// The rows of a batch of files, each after its position in the batch (from 1).
    struct Rows: PostgresPreparedStatement {
        static let sql = """
            SELECT q.n, f.id, f.container_id, f.owner_id, f.name, f.size, f.version, f.sha256, f.blob_key, f.modified_at, f.lock_value, f.lock_expires_at
            FROM unnest($1::text[]) WITH ORDINALITY AS q(id, n) JOIN files f ON f.id = q.id
            """
        typealias Row = (Int64, String, String, String, String, Int64, Int64, String, String, Double, String?, Double?)
        var ids: [String]
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(ids)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Sets each file's lock ('' clears it), in one statement and one commit, as the store's lock batches commit.
    struct SetLocks: PostgresPreparedStatement {
        static let sql = """
            WITH settings AS (SELECT set_config('synchronous_commit', 'off', true))
            UPDATE files f SET lock_value = nullif(q.lock, ''), lock_expires_at = extract(epoch FROM now()) + 1800
            FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(id, lock, n), settings
            WHERE f.id = q.id RETURNING q.n
            """
        typealias Row = Int64
        var ids: [String]
        var locks: [String]
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(ids)
            bindings.append(locks)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
    }

    let lookups: StatementBatcher<String, Bool>
    let lockChanges: StatementBatcher<(id: String, lock: String), Bool>

    /// The pool as `PostgresStore` configures it: its connections open and unpinged, generic plans.
    static func client(host: String, port: Int, user: String, database: String) -> PostgresClient {
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: nil, database: database, tls: .disable)
        let connections = min(16, 4 * ProcessInfo.processInfo.activeProcessorCount)
        configuration.options.maximumConnections = connections
        configuration.options.minimumConnections = connections
        configuration.options.keepAliveBehavior = nil
        configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
        return PostgresClient(configuration: configuration)
    }

    init(client: PostgresClient) {
        let logger = Logger(label: "floor")
        let limit = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
        lookups = StatementBatcher(limit: limit) { ids in
            var found = [Bool](repeating: false, count: ids.count)
            for try await row in try await client.execute(Rows(ids: ids), logger: logger) { found[Int(row.0) - 1] = true }
            return found
        }
        lockChanges = StatementBatcher(limit: limit) { changes in
            var changed = [Bool](repeating: false, count: changes.count)
            for try await position in try await client.execute(SetLocks(ids: changes.map(\.id), locks: changes.map(\.lock)), logger: logger) {
                changed[Int(position) - 1] = true
            }
            return changed
        }
    }

    func fileExists(_ id: String) async throws -> Bool { try await lookups.run(id) }

    func setLock(_ lock: String?, of id: String) async throws { _ = try await lockChanges.run((id, lock ?? "")) }
}
