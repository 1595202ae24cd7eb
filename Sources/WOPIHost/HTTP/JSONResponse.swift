import Foundation
import Hummingbird
import NIOCore

/// WOPI JSON bodies use PascalCase property names; Swift types keep Swift names and this encoder
/// upper-cases the first letter (`baseFileName` → `BaseFileName`, `SHA256` stays as it is).
enum WOPIJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .custom { path in
            let key = path.last!.stringValue
            return PascalKey(stringValue: key.prefix(1).uppercased() + key.dropFirst())
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A 200 (or `status`) response with `value` as JSON.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try encoder.encode(value)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private struct PascalKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
