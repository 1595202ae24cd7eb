import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The requests the client makes of its provider: small JSON answers, each within a deadline, no redirects.
struct ProviderHTTP: Sendable {
    let client: HTTPClient
    let timeout: Duration

    /// The most an answer may hold; discovery documents and key sets are a few KiB.
    static let maximumBody = 1 << 20

    /// What a request ended with.
    struct Answer {
        var status: Int
        var body: Data
    }

    /// A request that could not be made or answered in time.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func get(_ url: String) async throws(Failure) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await execute(request)
    }

    func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws(Failure) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")))
        return try await execute(request)
    }

    private func execute(_ request: HTTPClientRequest) async throws(Failure) -> Answer {
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            let body = try await response.body.collect(upTo: Self.maximumBody)
            return Answer(status: Int(response.status.code), body: Data(buffer: body))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw Failure(description: "no answer within \(timeout)")
        } catch {
            throw Failure(description: Self.describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return "\(error)" }
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// `application/x-www-form-urlencoded`: everything but RFC 3986's unreserved characters percent-encoded.
    static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
