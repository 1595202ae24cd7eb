import Foundation
import WOPICore

/// Reads a WOPI client's discovery document from its URL.
///
/// The host has no HTTP client of its own, so that an app embedding it links no TLS stack it does not
/// choose: `wopi serve` passes one over AsyncHTTPClient (200 only, at most 4 MiB, within a timeout), and an
/// embedder that reads discovery from a URL passes its own (URLSession, AsyncHTTPClient, …).
public typealias DiscoveryFetch = @Sendable (URL) async throws -> Data

/// Where a WOPI client's discovery XML comes from: a file, or the client's `/hosting/discovery` URL.
public enum DiscoverySource: Sendable, Hashable, CustomStringConvertible {
    /// A discovery XML file on disk.
    case file(URL)
    /// A discovery URL fetched over HTTP(S).
    case url(URL)

    /// Interprets `text` as an http(s) URL when it has that scheme, else as a path.
    public init(_ text: String) {
        if let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            self = .url(url)
        } else {
            self = .file(URL(fileURLWithPath: text))
        }
    }

    /// Reads the document, a URL's with `fetch`, and returns its proof keys.
    ///
    /// Throws when the document cannot be read (``DiscoveryLoadError/noFetch`` for a URL without `fetch`),
    /// is not discovery XML, or has no `proof-key` element.
    public func loadProofKeys(fetch: DiscoveryFetch?) async throws -> ProofKeyPair {
        let data: Data
        switch self {
        case .file(let url):
            data = try Data(contentsOf: url)
        case .url(let url):
            guard let fetch else { throw DiscoveryLoadError.noFetch }
            data = try await fetch(url)
        }
        guard let keys = try DiscoveryDocument(xml: data).proofKeys else { throw DiscoveryLoadError.noProofKey }
        return keys
    }

    /// The path or URL discovery is read from.
    public var description: String {
        switch self {
        case .file(let url): url.path
        case .url(let url): url.absoluteString
        }
    }
}

/// Why discovery could not be loaded.
public enum DiscoveryLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The discovery URL answered with this status.
    case httpStatus(Int)
    /// The document has no `proof-key` element.
    case noProofKey
    /// Discovery comes from a URL, and no ``DiscoveryFetch`` was given to read it.
    case noFetch

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .httpStatus(let status): "discovery URL answered HTTP \(status)"
        case .noProofKey: "discovery XML has no proof-key element"
        case .noFetch: "discovery comes from a URL, and no fetch function was given to read it"
        }
    }
}
