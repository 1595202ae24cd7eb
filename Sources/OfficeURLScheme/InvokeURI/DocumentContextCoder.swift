import Foundation

/// Encodes your app's own `Codable` state as a document context that survives every layer
/// between your app and Office and back.
///
/// The context is JSON, then base64url without padding (RFC 4648 §5), so it holds only
/// `A-Z a-z 0-9 - _`: no `|`, `%`, `&` or `=` for any layer to encode or misread. Use it through
/// ``OfficeInvokeURI/withContext(_:)`` and ``OfficePassback/decodeContext(as:)``.
public enum DocumentContextCoder {
    /// Encodes `value` as JSON (keys sorted, so equal values give equal contexts), then base64url.
    ///
    /// - Throws: ``OfficeURLError/invalidDocumentContext(_:)`` when JSON encoding fails.
    public static func encode<Context: Encodable>(_ value: Context) throws(OfficeURLError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw .invalidDocumentContext("cannot encode \(Context.self) as JSON: \(error)")
        }
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes a context made by ``encode(_:)``.
    ///
    /// - Throws: ``OfficeURLError/invalidDocumentContext(_:)`` when `context` is not base64url
    ///   or its JSON does not decode as `type`.
    public static func decode<Context: Decodable>(_ type: Context.Type, from context: String) throws(OfficeURLError) -> Context {
        var base64 = context.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { throw .invalidDocumentContext("'\(OfficeURLError.clip(context))' is not base64url") }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else {
            throw .invalidDocumentContext("'\(OfficeURLError.clip(context))' is not base64url")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .invalidDocumentContext("the context does not decode as \(Context.self)")
        }
    }
}
