import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WOPIHost

/// Discovery documents over HTTP(S), for the proof keys `--discovery` names and the browser editors of `--wopi-client`.
enum DiscoveryHTTP {
    /// GET a URL within `timeout`: 200 and at most 4 MiB, or an error naming what went wrong.
    static func fetch(timeout: TimeAmount) -> DiscoveryFetch {
        { url in
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: timeout)
            guard response.status == .ok else { throw DiscoveryLoadError.httpStatus(Int(response.status.code)) }
            return Data(buffer: try await response.body.collect(upTo: 4 * 1024 * 1024))
        }
    }
}
