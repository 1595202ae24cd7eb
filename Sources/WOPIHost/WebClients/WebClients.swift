import Foundation
import Logging
import WOPICore

/// The browser editors the host opens files in, each with its discovery read, cached and kept fresh.
///
/// WOPI docs, online/discovery.rst: a host caches discovery and reads it again every 12–24 hours,
/// and again when a proof fails (the client may have rotated its keys). Here every client is read
/// once at start — a client whose discovery cannot be fetched or parsed stops the start with an
/// error naming it — then every ``refreshInterval``; a failed refresh is logged and the cached
/// document kept. A proof failure re-reads at most once per ``minimumProofRefreshInterval``, so
/// forged requests cannot make the host hammer a client.
///
/// A client whose discovery has no `proof-key` element (Collabora Online's may not) has proof
/// checks off: requests without a proof are then accepted on `/wopi` (``acceptsUnsignedRequests``).
public actor WebClients {
    /// One client and what its discovery said.
    public struct Client: Sendable {
        /// Its name (`--wopi-client NAME=…`).
        public let spec: WebClientSpec
        /// The discovery document as last read.
        public let document: DiscoveryDocument
        /// Its actions by extension and MIME type.
        public let actions: WebClientActions
        /// When the document was read.
        public let readAt: Date

        /// The client's name.
        public var name: String { spec.name }
        /// Whether its requests are checked against proof keys.
        public var checksProofs: Bool { document.proofKeys != nil }
    }

    /// How often every discovery is read again: 12 hours.
    public static let refreshInterval: Duration = .seconds(12 * 3600)
    /// The shortest time between two re-reads a proof failure causes.
    public let minimumProofRefreshInterval: TimeInterval

    private var clients: [Client]
    private var lastProofRefresh: Date = .distantPast
    private let logger: Logger
    private let fetch: DiscoveryFetch

    /// Reads every client's discovery with `fetch`; throws ``WebClientError`` for the first that cannot be used.
    public init(_ specs: [WebClientSpec], minimumProofRefreshInterval: TimeInterval = 60, logger: Logger = Logger(label: "wopi.web-clients"),
                fetch: @escaping DiscoveryFetch) async throws(WebClientError) {
        var names: Set<String> = []
        var loaded: [Client] = []
        for spec in specs {
            guard names.insert(spec.name).inserted else { throw .duplicateName(spec.name) }
            loaded.append(try await Self.read(spec, fetch: fetch))
        }
        self.clients = loaded
        self.minimumProofRefreshInterval = minimumProofRefreshInterval
        self.logger = logger
        self.fetch = fetch
    }

    /// Every client, in the order given.
    public var all: [Client] { clients }

    /// The client named `name`.
    public func client(named name: String) -> Client? {
        clients.first { $0.name == name }
    }

    /// The first client (in the order given) that opens a file named `fileName`.
    public func firstClient(handling fileName: String) -> Client? {
        clients.first { $0.actions.handles(fileNamed: fileName) }
    }

    /// The first client (in the order given) that edits a file named `fileName`.
    public func firstClient(editing fileName: String) -> Client? {
        clients.first { $0.actions.action(.edit, forFileNamed: fileName) != nil }
    }

    /// The proof keys of the clients that have them.
    public var proofKeys: [ProofKeyPair] { clients.compactMap(\.document.proofKeys) }

    /// Whether some client has proof checks off, so a request without a proof must be let through.
    public var acceptsUnsignedRequests: Bool { clients.contains { !$0.checksProofs } }

    /// Re-reads every discovery; a client that fails keeps its cached document (logged). Returns whether any proof keys changed.
    @discardableResult
    public func refreshAll() async -> Bool {
        var changed = false
        for (index, client) in clients.enumerated() {
            do {
                let fresh = try await Self.read(client.spec, fetch: fetch)
                if fresh.document.proofKeys != client.document.proofKeys {
                    changed = true
                    logger.notice("browser editor's proof keys changed", metadata: ["client": "\(client.name)"])
                }
                clients[index] = fresh
            } catch {
                logger.error("could not re-read a browser editor's discovery; keeping the cached one",
                             metadata: ["client": "\(client.name)", "error": "\(error)"])
            }
        }
        return changed
    }

    /// After a failed proof: re-reads discovery unless that happened less than ``minimumProofRefreshInterval`` ago.
    /// Returns whether any proof keys changed.
    public func refreshAfterProofFailure(now: Date = Date()) async -> Bool {
        guard now.timeIntervalSince(lastProofRefresh) >= minimumProofRefreshInterval else { return false }
        lastProofRefresh = now
        return await refreshAll()
    }

    /// Re-reads every discovery every `interval` until the task is cancelled.
    public nonisolated func keepFresh(every interval: Duration = WebClients.refreshInterval) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            await refreshAll()
        }
    }

    // MARK: Reading

    private static func read(_ spec: WebClientSpec, fetch: @Sendable (URL) async throws -> Data) async throws(WebClientError) -> Client {
        let data: Data
        do {
            data = try await fetch(spec.discoveryURL)
        } catch {
            throw .discovery(client: spec.name, url: spec.discoveryURL.absoluteString, reason: "\(error)")
        }
        do {
            let document = try DiscoveryDocument(xml: data)
            return Client(spec: spec, document: document, actions: WebClientActions(document), readAt: Date())
        } catch {
            throw .discovery(client: spec.name, url: spec.discoveryURL.absoluteString, reason: error.description)
        }
    }
}
