import Foundation

/// Masks secrets in text meant for people, logs and reports: access and refresh tokens, OAuth codes,
/// client secrets and passwords.
///
/// Three rules, applied in this order:
/// - **Known values.** Every secret given to ``init(knownSecrets:)`` (the tokens and passwords a tool was
///   handed) is masked wherever it appears: as given, percent-encoded (RFC 3986 §2.1) and JSON-escaped.
///   Values shorter than ``minimumKnownSecretLength`` are ignored, so a one-letter test password does not
///   mask every letter of the output.
/// - **Named fields.** The value of a field whose name is in ``secretFieldNames`` (compared without case,
///   `_` or `-`): query and form fields (`access_token=…`, RFC 6749 §4.1.2), quoted attributes
///   (`password="…"`) and JSON string members (`"refresh_token": "…"`, escaped or not).
/// - **Authorization schemes.** The credentials after `Bearer` (RFC 6750 §2.1) and `Basic` (RFC 7617 §2).
///
/// A masked value becomes ``mask``. The rules are pure and cheap; callers apply them where text leaves
/// the process.
public struct SecretRedactor: Sendable, Hashable {
    /// What a secret is replaced with.
    public static let mask = "[redacted]"

    /// Known values shorter than this are not masked by value (they would mask ordinary text).
    public static let minimumKnownSecretLength = 4

    /// Field names whose values are secrets, lower-cased without `_` or `-`.
    public static let secretFieldNames: Set<String> = [
        "accesstoken", "refreshtoken", "idtoken", "token", "code", "clientsecret", "secret", "password", "passwd",
    ]

    /// The literal forms masked by value, longest first (so a secret containing another is masked whole).
    public let knownForms: [String]

    /// Creates a redactor that also masks these values wherever they appear.
    public init(knownSecrets: some Sequence<String> = [String]()) {
        var forms = Set<String>()
        for secret in knownSecrets where secret.count >= Self.minimumKnownSecretLength {
            forms.insert(secret)
            forms.insert(Self.percentEncoded(secret, formEncoding: false))
            forms.insert(Self.percentEncoded(secret, formEncoding: true))
            forms.insert(Self.jsonEscaped(secret))
        }
        knownForms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// This redactor with more known secrets.
    public func adding(_ secrets: some Sequence<String>) -> SecretRedactor {
        SecretRedactor(knownSecrets: knownForms + Array(secrets))
    }

    /// Whether a field (option, header, JSON member, query parameter) of this name holds a secret.
    ///
    /// True for the names in ``secretFieldNames`` and for any name ending in `token`, `secret` or
    /// `password`, such as `--scratch-token` or `WOPI_OFFICE_CLIENT_SECRET` (not `--access-token-ttl`).
    public static func isSecretName(_ name: some StringProtocol) -> Bool {
        let normalized = normalizedName(name)
        return secretFieldNames.contains(normalized) || ["token", "secret", "password"].contains { normalized.hasSuffix($0) }
    }

    /// `text` with every secret replaced by ``mask``.
    public func redact(_ text: String) -> String {
        var result = text
        for form in knownForms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: Self.mask)
        }
        return Self.redactFields(result)
    }

    // MARK: Rules

    private static func normalizedName(_ name: some StringProtocol) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Scans once, copying text and replacing the values of secret fields and authorization credentials.
    private static func redactFields(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        var copied = 0
        func flush(upTo end: Int) {
            if copied < end { output.append(contentsOf: scalars[copied..<end]) }
        }
        while index < scalars.count {
            guard isNameScalar(scalars[index]), index == 0 || !isNameScalar(scalars[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < scalars.count, isNameScalar(scalars[end]) { end += 1 }
            let name = String(String.UnicodeScalarView(scalars[index..<end]))
            if let value = valueRange(after: end, named: name, in: scalars), value.lowerBound < value.upperBound,
               !scalars[value.lowerBound...].starts(with: mask.unicodeScalars) {
                flush(upTo: value.lowerBound)
                output.append(contentsOf: mask.unicodeScalars)
                copied = value.upperBound
                index = value.upperBound
            } else {
                index = end
            }
        }
        flush(upTo: scalars.count)
        return String(output)
    }

    /// Where the secret value that follows the name ending at `nameEnd` lies, or `nil` when there is none.
    private static func valueRange(after nameEnd: Int, named name: String, in scalars: [Unicode.Scalar]) -> Range<Int>? {
        let lowered = name.lowercased()
        if lowered == "bearer" || lowered == "basic" {
            var start = nameEnd
            guard start < scalars.count, scalars[start] == " " else { return nil }
            while start < scalars.count, scalars[start] == " " { start += 1 }
            var end = start
            while end < scalars.count, isCredentialScalar(scalars[end]) { end += 1 }
            let padding = end
            while end < scalars.count, scalars[end] == "=" { end += 1 }
            // `Bearer authorization_uri="…"` is a challenge's auth-param, not a credential.
            if end > padding, end < scalars.count, !scalars[end].properties.isWhitespace, scalars[end] != "," { return nil }
            return start..<end
        }
        guard secretFieldNames.contains(normalizedName(name)) else { return nil }
        var position = nameEnd
        // `name="…"` or `name=…`: a query, form or attribute value.
        if position < scalars.count, scalars[position] == "=" {
            position += 1
            if position < scalars.count, scalars[position] == "\"" || scalars[position] == "'" {
                let quote = scalars[position]
                let start = position + 1
                var end = start
                while end < scalars.count, scalars[end] != quote { end += 1 }
                return start..<end
            }
            var end = position
            while end < scalars.count, !isQueryValueTerminator(scalars[end]) { end += 1 }
            return position..<end
        }
        // `"name": "…"` (or `\"name\": \"…\"` inside an escaped JSON string).
        let escaped = position + 1 < scalars.count && scalars[position] == "\\" && scalars[position + 1] == "\""
        guard escaped || (position < scalars.count && scalars[position] == "\"") else { return nil }
        position += escaped ? 2 : 1
        while position < scalars.count, scalars[position] == " " { position += 1 }
        guard position < scalars.count, scalars[position] == ":" else { return nil }
        position += 1
        while position < scalars.count, scalars[position] == " " { position += 1 }
        if escaped {
            guard position + 1 < scalars.count, scalars[position] == "\\", scalars[position + 1] == "\"" else { return nil }
            let start = position + 2
            var end = start
            while end + 1 < scalars.count, !(scalars[end] == "\\" && scalars[end + 1] == "\"") { end += 1 }
            return start..<min(end, scalars.count)
        }
        guard position < scalars.count, scalars[position] == "\"" else { return nil }
        let start = position + 1
        var end = start
        while end < scalars.count, scalars[end] != "\"" {
            end += scalars[end] == "\\" ? 2 : 1
        }
        return start..<min(end, scalars.count)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }

    /// RFC 6750's `b64token` characters, which also cover Basic's base64.
    private static func isCredentialScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~+/".unicodeScalars.contains(scalar))
    }

    private static func isQueryValueTerminator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || "&#\"'<>;,)]}".unicodeScalars.contains(scalar)
    }

    private static func percentEncoded(_ text: String, formEncoding: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar)) {
                out.unicodeScalars.append(scalar)
            } else if formEncoding && byte == 0x20 {
                out += "+"
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    private static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += "\\/"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
