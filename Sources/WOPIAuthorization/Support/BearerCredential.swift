import Foundation
import HTTPTypes

/// The token in an `Authorization` header: `Bearer <token>` (RFC 6750 §2.1), and also
/// `Bearer: <token>`, the form the WOPI bootstrapper docs show (Bootstrap.rst).
enum BearerCredential {
    /// The token, or `nil` when the header is missing, doubled, of another scheme, or empty.
    static func token(in headers: HTTPFields) -> String? {
        let values = headers[values: .authorization]
        guard values.count == 1, let value = values.first else { return nil }
        var text = Substring(value).drop { $0 == " " }
        guard text.count > 6, text.prefix(6).lowercased() == "bearer" else { return nil }
        text = text.dropFirst(6)
        if text.first == ":" { text = text.dropFirst() }
        guard text.first == " " else { return nil }
        let token = text.trimmingCharacters(in: .whitespaces)
        return token.isEmpty || token.contains(" ") ? nil : token
    }
}
