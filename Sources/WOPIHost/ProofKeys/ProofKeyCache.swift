import Foundation
import Logging
import WOPICore

/// The WOPI client's current proof keys, re-read from discovery when they seem stale.
///
/// proofkeys.rst: when only the old key verifies, or nothing does, the client may have rotated its
/// keys, so the host re-reads discovery — but at most once per ``minimumRefreshInterval``, so a
/// stream of forged requests cannot make the host hammer the discovery endpoint.
public actor ProofKeyCache {
    /// Where the keys come from.
    public let source: DiscoverySource
    /// The shortest time between two re-reads.
    public let minimumRefreshInterval: TimeInterval
    private(set) var keys: ProofKeyPair
    private var lastRefresh: Date
    private let logger: Logger
    private let fetch: DiscoveryFetch?

    /// Loads the keys once; throws when discovery cannot be read, so a host never starts unprotected by mistake.
    /// A ``DiscoverySource/url(_:)`` source is read with `fetch`.
    public init(source: DiscoverySource, fetch: DiscoveryFetch? = nil, minimumRefreshInterval: TimeInterval = 60,
                logger: Logger = Logger(label: "wopi.proof-keys")) async throws {
        self.source = source
        self.fetch = fetch
        self.minimumRefreshInterval = minimumRefreshInterval
        self.keys = try await source.loadProofKeys(fetch: fetch)
        self.lastRefresh = Date()
        self.logger = logger
    }

    /// The keys to verify with now.
    public var current: ProofKeyPair { keys }

    /// Re-reads discovery unless that happened less than ``minimumRefreshInterval`` ago.
    /// Returns whether the keys changed.
    @discardableResult
    public func refreshIfAllowed(now: Date = Date()) async -> Bool {
        guard now.timeIntervalSince(lastRefresh) >= minimumRefreshInterval else { return false }
        lastRefresh = now
        do {
            let fresh = try await source.loadProofKeys(fetch: fetch)
            guard fresh != keys else { return false }
            keys = fresh
            logger.notice("proof keys changed; re-read discovery", metadata: ["source": "\(source)"])
            return true
        } catch {
            logger.error("could not re-read discovery", metadata: ["source": "\(source)", "error": "\(error)"])
            return false
        }
    }
}
