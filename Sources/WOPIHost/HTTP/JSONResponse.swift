import Foundation
import Hummingbird
import NIOCore
import NIOConcurrencyHelpers

/// WOPI JSON bodies use PascalCase property names; Swift types keep Swift names and this encoder
/// upper-cases the first letter (`baseFileName` → `BaseFileName`, `SHA256` stays as it is).
package enum WOPIJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .custom { path in PascalKey(stringValue: pascalCase(path.last!.stringValue)) }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A 200 (or `status`) response with `value` as JSON.
    package static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        if let flat = FlatJSONEncoder.encode(value) { // the same bytes, without Foundation's value tree
            return Response(status: status, headers: headers, body: .init(byteBuffer: flat))
        }
        let data = try encoder.encode(value)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `key` with its first letter capitalized, remembered: the strategy runs for every key of every
    /// answer, and the set of keys is small and fixed (this was a visible part of CheckFileInfo).
    static func pascalCase(_ key: String) -> String {
        pascalKeys.converted(key)
    }

    private static let pascalKeys = PascalKeyCache()

    /// The keys converted so far, behind a lock (encoders run on many threads).
    private final class PascalKeyCache: Sendable {
        // A pthread mutex rather than Synchronization's Mutex, whose locking ThreadSanitizer on Linux does not see.
        private let keys = NIOLockedValueBox<[String: String]>([:])

        func converted(_ key: String) -> String {
            if let known = keys.withLockedValue({ $0[key] }) { return known }
            let converted = key.prefix(1).uppercased() + key.dropFirst()
            keys.withLockedValue { $0[key] = converted }
            return converted
        }
    }

    private struct PascalKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
