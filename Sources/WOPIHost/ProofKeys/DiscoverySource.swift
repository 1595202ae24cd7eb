import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WOPICore

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

    /// Reads the document and returns its proof keys.
    ///
    /// Throws when the document cannot be read, is not discovery XML, or has no `proof-key` element.
    public func loadProofKeys() async throws -> ProofKeyPair {
        let data: Data
        switch self {
        case .file(let url):
            data = try Data(contentsOf: url)
        case .url(let url):
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(15))
            guard response.status == .ok else { throw DiscoveryLoadError.httpStatus(Int(response.status.code)) }
            data = Data(buffer: try await response.body.collect(upTo: 4 * 1024 * 1024))
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

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .httpStatus(let status): "discovery URL answered HTTP \(status)"
        case .noProofKey: "discovery XML has no proof-key element"
        }
    }
}
