/// A parsed JSON document, as the validator's JSON checks see it.
///
/// Numbers keep their lexical form so that `integer` (JSON Schema draft 4 §5.5.2) can be told from a
/// fractional `number`, exactly as Microsoft's runner (Newtonsoft.Json tokens) does. Objects keep
/// member order for readable error messages.
public indirect enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number and its text as it appeared in the document.
    case number(JSONNumber)
    /// A string, unescaped.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, its members in document order (duplicates kept).
    case object([(key: String, value: JSONValue)])

    /// Equal values: numbers by value, object members pairwise in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            return zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }

    /// The value of member `key` when this is an object; with duplicate keys the last wins, as in Newtonsoft.Json.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The JSON type name used in error messages and by JSON Schema's `type` keyword.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let n): return n.isInteger ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The value rendered as .NET's `JToken.Value<string>()` renders a scalar: strings as is, booleans
    /// as `True`/`False`, numbers in their document form; `nil` for null, arrays and objects.
    public var scalarText: String? {
        switch self {
        case .string(let s): return s
        case .bool(let b): return b ? "True" : "False"
        case .number(let n): return n.text
        case .null, .array, .object: return nil
        }
    }

    /// Compact JSON text for error messages.
    public var jsonText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n.text
        case .string(let s): return JSONValue.quoted(s)
        case .array(let items): return "[" + items.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { JSONValue.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// A JSON number with its original text (RFC 8259 §6).
public struct JSONNumber: Sendable, Hashable {
    /// The number as written in the document.
    public let text: String

    /// Creates a number from its JSON text; `nil` when the text is not a JSON number.
    public init?(text: String) {
        guard Double(text) != nil else { return nil }
        self.text = text
    }

    /// True when the text has no fraction or exponent, which is how Newtonsoft decides `Integer` tokens.
    public var isInteger: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    /// The value as a 64-bit integer, when it is an integer that fits.
    public var int64Value: Int64? { isInteger ? Int64(text) : nil }

    /// The value as a double.
    public var doubleValue: Double { Double(text) ?? .nan }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
