import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIStorePostgres

/// The WOPI host under test: the real Hummingbird application on 127.0.0.1 and an ephemeral
/// port, over fresh temporary embedded storage (``HostStorage``), with an HTTP client pointed at it.
///
/// Every test gets its own host through ``run(maximumFileSize:_:)``, which removes the data
/// folder afterwards. Users and files are created through the store, tokens through
/// ``WOPIBackend/issueToken(user:resource:notAfter:)``; everything else goes over HTTP.
struct TestHost: Sendable {
    /// The public URL the host is configured with. It deliberately differs from the address the
    /// tests connect to, so a test sees that returned URLs are built from the configuration and
    /// not from the request; ``send(url:)`` maps such URLs back to the local server.
    static let publicURL = "https://wopi.invalid"

    let folder: HostStorage
    let dataURL: URL
    let backend: WOPIBackend
    let clock: HostClock
    let port: Int
    let client: HTTPClient

    /// Starts a host, runs `body` against it, then stops the host and deletes its data.
    ///
    /// With `database` the metadata lives in that PostgreSQL database instead of SQLite; with `blobs` the
    /// bodies live in that folder instead of the data folder's `blobs/`.
    static func run<T: Sendable>(maximumFileSize: Int64 = 512 * 1024 * 1024, proofKeys: ProofKeyCache? = nil,
                                 retiredBodyGracePeriod: Duration = .seconds(30), keepVersions: Int = 10,
                                 monitor: HostMonitor = HostMonitor(), database: PostgresDatabaseURL? = nil, blobs: URL? = nil,
                                 webClients: WebClients? = nil, officeRegistration: OfficeRegistration? = nil, openIDSignIn: OpenIDSignIn? = nil,
                                 _ body: (TestHost) async throws -> T) async throws -> T {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("wopihost-tests-\(UUID().uuidString)", isDirectory: true).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let folder = try await HostStorage.open(data: URL(fileURLWithPath: path, isDirectory: true), database: database, blobs: blobs)
        let clock = HostClock()
        var configuration = WOPIHostConfiguration(publicURL: URL(string: publicURL)!, maximumFileSize: maximumFileSize,
                                                  now: { clock.now() })
        configuration.retiredBodyGracePeriod = retiredBodyGracePeriod
        configuration.keepVersions = keepVersions
        configuration.monitor = monitor
        configuration.webClients = webClients
        configuration.officeRegistration = officeRegistration
        configuration.openIDSignIn = openIDSignIn
        let backend = try await folder.backend(configuration: configuration)

        var logger = Logger(label: "wopi-host-tests")
        logger.logLevel = ProcessInfo.processInfo.environment["WOPI_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        // The same router and server settings as `WOPIHostApplication.make`, plus a callback that
        // reports the port the kernel chose for port 0.
        let app = Application(router: WOPIHostApplication.router(backend: backend, proofKeys: proofKeys, extensions: [AuthorizationRoutes()]),
                              server: .http1(configuration: .init(additionalChannelHandlers: WOPIHostApplication.channelHandlers())),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "WOPIKit"),
                              onServerRunning: { channel in
                                  portContinuation.yield(channel.localAddress?.port ?? 0)
                                  portContinuation.finish()
                              },
                              logger: logger)
        let server = Task {
            defer { portContinuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            server.cancel()
            try await server.value
            throw TestHostError.serverDidNotStart
        }

        // Enough connections that 64 concurrent requests really are concurrent at the server.
        let clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64),
            decompression: .disabled)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let host = TestHost(folder: folder, dataURL: URL(fileURLWithPath: path, isDirectory: true), backend: backend, clock: clock, port: port, client: client)

        let result: Result<T, any Error>
        do { result = .success(try await body(host)) } catch { result = .failure(error) }
        try? await client.shutdown()
        server.cancel()
        _ = await server.result
        await folder.close()
        return try result.get()
    }

    // MARK: HTTP

    /// Sends a request to `path` (which starts with `/`), with `?access_token=` when a token is given.
    func send(_ method: HTTPMethod, _ path: String, token: String?, headers: [(String, String)] = [],
              body: HTTPClientRequest.Body? = nil) async throws -> WOPIResponse {
        var url = "http://127.0.0.1:\(port)\(path)"
        if let token { url += "?access_token=\(Self.queryEscaped(token))" }
        return try await send(method, absoluteURL: url, headers: headers, body: body)
    }

    /// Sends a request to a URL the host returned (built on ``publicURL``), at the local server.
    func send(_ method: HTTPMethod = .GET, url: String, headers: [(String, String)] = [],
              body: HTTPClientRequest.Body? = nil) async throws -> WOPIResponse {
        guard url.hasPrefix(Self.publicURL + "/") else { throw TestHostError.foreignURL(url) }
        let local = "http://127.0.0.1:\(port)" + url.dropFirst(Self.publicURL.count)
        return try await send(method, absoluteURL: local, headers: headers, body: body)
    }

    private func send(_ method: HTTPMethod, absoluteURL: String, headers: [(String, String)],
                      body: HTTPClientRequest.Body?) async throws -> WOPIResponse {
        var request = HTTPClientRequest(url: absoluteURL)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = body }
        let response = try await client.execute(request, timeout: .seconds(240))
        let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return WOPIResponse(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                            body: Data(bytes.readableBytesView))
    }

    /// Percent-escapes what a query value cannot carry as is (only forged tokens need it).
    static func queryEscaped(_ value: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    // MARK: Data set-up through the store

    /// Creates a user (with an unusable password: these tests never sign in).
    func makeUser(_ name: String = "alice", displayName: String? = nil) async throws -> UserRecord {
        try await folder.store.createUser(name: name, displayName: displayName ?? name.capitalized, passwordHash: .unusable)
    }

    /// Stores `content` as a file named `name` in `container` (the owner's root by default).
    func addFile(_ name: String, _ content: Data, owner: UserRecord, in container: ResourceID? = nil) async throws -> FileRecord {
        try await folder.importFile(data: content, as: name, into: container ?? owner.rootContainerID)
    }

    /// Creates a sub-container through the store.
    func addContainer(_ name: String, in parent: ResourceID) async throws -> ContainerRecord {
        try await folder.store.createContainer(named: name, in: parent)
    }

    /// A fresh access token for `user` on `resource`.
    func token(_ user: UserRecord, _ resource: WOPIResource, notAfter: Date? = nil) -> String {
        backend.issueToken(user: user.id, resource: resource, notAfter: notAfter).token
    }

    /// A user with one file and a token for it: the starting point of most file tests.
    func document(_ name: String = "Report.docx", _ content: Data = Data("Hello, WOPI".utf8),
                  user userName: String = "alice") async throws -> Document {
        let user = try await makeUser(userName)
        let file = try await addFile(name, content, owner: user)
        return Document(user: user, file: file, token: token(user, .file(file.id)))
    }
}

/// A user, one of their files, and a token for that file.
struct Document: Sendable {
    let user: UserRecord
    let file: FileRecord
    let token: String
    var id: String { file.id.rawValue }
}

/// Why the fixture could not do its job.
enum TestHostError: Error, CustomStringConvertible {
    case serverDidNotStart
    case foreignURL(String)

    var description: String {
        switch self {
        case .serverDidNotStart: "the WOPI host did not report a listening port"
        case .foreignURL(let url): "the host returned a URL not under its public URL \(TestHost.publicURL): \(url)"
        }
    }
}
