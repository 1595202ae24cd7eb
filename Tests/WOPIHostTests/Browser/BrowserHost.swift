import Foundation
import TestSupport
import Hummingbird
import Logging
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost
import WOPIStoreSQLite

/// The WOPI host as a browser reaches it: the real application on a free 127.0.0.1 port whose
/// public URL is that address (so every link on a page works in the browser), with sign-in on,
/// one user with a password, and a Word document in their root folder.
struct BrowserHost: Sendable {
    static let userName = "alice"
    static let password = "alice-password-1"
    static let officeClientID = "office-test"

    let folder: HostStorage
    /// The data folder (`wopi.sqlite`, `blobs/`).
    let data: URL
    let backend: WOPIBackend
    let port: Int
    let user: UserRecord
    let report: FileRecord

    /// `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the host, runs `body`, stops the host and deletes its data.
    static func run<T: Sendable>(maximumFileSize: Int64 = 64 * 1024 * 1024, webClients: WebClients? = nil, openIDSignIn: OpenIDSignIn? = nil,
                                 _ body: (BrowserHost) async throws -> T) async throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wopi-browser-\(UUID().uuidString)", isDirectory: true).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let folder = try HostStorage.embedded(data: URL(fileURLWithPath: path, isDirectory: true))
        // A cheap scrypt cost keeps the tests fast; the verification path is the same.
        let user = try await folder.store.createUser(name: userName, displayName: "Alice Example",
                                                     passwordHash: PasswordHash(hashing: password, logN: 10))
        let report = try await folder.importFile(data: Data("Quarterly report".utf8), as: "Report.docx", into: user.rootContainerID)
        // The public URL names the port, so the port is chosen before the server binds it; another test may take
        // it in between, and then the host tries another.
        for attempt in 1... {
            let port = try LocalPort.free()
            var configuration = WOPIHostConfiguration(publicURL: URL(string: "http://127.0.0.1:\(port)")!, maximumFileSize: maximumFileSize)
            configuration.officeRegistration = try OfficeRegistration(clientID: officeClientID, clientSecret: "office-secret-0123456789",
                                                                      redirectURI: "https://localhost", providerID: "tp_wopikit")
            configuration.webClients = webClients
            configuration.openIDSignIn = openIDSignIn
            let backend = try await folder.backend(configuration: configuration)

            var logger = Logger(label: "wopi-browser-tests")
            logger.logLevel = ProcessInfo.processInfo.environment["WOPI_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
            let (running, runningContinuation) = AsyncStream.makeStream(of: Void.self)
            let app = Application(router: WOPIHostApplication.router(backend: backend, extensions: [AuthorizationRoutes()]),
                                  configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "WOPIKit"),
                                  onServerRunning: { _ in
                                      runningContinuation.yield()
                                      runningContinuation.finish()
                                  }, logger: logger)
            let server = Task {
                defer { runningContinuation.finish() }
                try await app.runService(gracefulShutdownSignals: [])
            }
            // Wait until the server listens, or has failed (the stream then ends without an element).
            var events = running.makeAsyncIterator()
            guard await events.next() != nil else {
                let failure = await server.result
                if attempt < 3 { continue }
                throw BrowserHostError.notListening(port: port, reason: "\(failure)")
            }
            let host = BrowserHost(folder: folder, data: URL(fileURLWithPath: path, isDirectory: true), backend: backend, port: port,
                                   user: user, report: report)
            let result: Result<T, any Error>
            do { result = .success(try await body(host)) } catch { result = .failure(error) }
            server.cancel()
            _ = await server.result
            return try result.get()
        }
        fatalError("unreachable: the loop returns or throws")
    }
}

/// Why the browser tests' host could not start.
enum BrowserHostError: Error, CustomStringConvertible {
    case notListening(port: Int, reason: String)

    var description: String {
        switch self {
        case .notListening(let port, let reason): "the host did not listen on 127.0.0.1:\(port) three times in a row: \(reason)"
        }
    }
}
