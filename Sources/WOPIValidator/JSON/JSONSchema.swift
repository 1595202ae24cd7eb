import Foundation

/// The subset of JSON Schema draft 4 that Microsoft's validator schema files (`JsonSchemas/*.json`) use.
///
/// Supported keywords: `type`, `properties`, `required`, `additionalProperties` (boolean), `items`,
/// `minItems`, `oneOf`, `not`, `enum`, `format` (`uri`, `date-time`), `minLength`, `maxLength`, `minimum`.
/// Annotations (`$schema`, `title`, `description`, `default`) are ignored. Any other keyword makes loading
/// fail, so a schema is never half-applied.
public struct JSONSchema: Sendable, Hashable {
    /// Why a schema document was rejected.
    public struct LoadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The JSON Pointer of the offending part.
        public let pointer: String
        /// What was wrong.
        public let reason: String
        /// One line naming the unsupported part.
        public var description: String { "unsupported JSON schema at \(pointer.isEmpty ? "#" : pointer): \(reason)" }
    }

    private static let annotations: Set<String> = ["$schema", "title", "description", "default"]

    var types: [String]?
    var properties: [(name: String, schema: JSONSchema)] = []
    var required: [String] = []
    var additionalPropertiesAllowed = true
    var items: [JSONSchema] = []  // zero or one
    var minItems: Int?
    var oneOf: [JSONSchema] = []
    var not: [JSONSchema] = []  // zero or one
    var enumValues: [JSONValue]?
    var format: String?
    var minLength: Int?
    var maxLength: Int?
    var minimum: Double?

    /// Builds a schema from a parsed schema document.
    public init(_ document: JSONValue) throws(LoadError) {
        try self.init(document, pointer: "")
    }

    /// Parses a schema file's bytes (which may carry a byte-order mark and `//` comments).
    public init(bytes: [UInt8]) throws(LoadError) {
        let document: JSONValue
        do {
            document = try JSONParser(allowsComments: true).parse(bytes)
        } catch {
            throw LoadError(pointer: "", reason: error.description)
        }
        try self.init(document)
    }

    private init(_ document: JSONValue, pointer: String) throws(LoadError) {
        guard case .object(let members) = document else {
            throw LoadError(pointer: pointer, reason: "a schema must be an object")
        }
        func intValue(_ v: JSONValue, _ key: String) throws(LoadError) -> Int {
            guard case .number(let n) = v, let i = n.int64Value, i >= 0 else {
                throw LoadError(pointer: pointer + "/" + key, reason: "expected a non-negative integer")
            }
            return Int(i)
        }
        for (key, value) in members {
            let here = pointer + "/" + key
            switch key {
            case _ where Self.annotations.contains(key):
                continue
            case "type":
                switch value {
                case .string(let t): types = [t]
                case .array(let list):
                    types = try list.map { (item: JSONValue) throws(LoadError) -> String in
                        guard case .string(let t) = item else { throw LoadError(pointer: here, reason: "type names must be strings") }
                        return t
                    }
                default: throw LoadError(pointer: here, reason: "expected a type name or a list of them")
                }
                let known: Set<String> = ["string", "boolean", "null", "array", "integer", "number", "object"]
                if let bad = types?.first(where: { !known.contains($0) }) {
                    throw LoadError(pointer: here, reason: "unknown type '\(bad)'")
                }
            case "properties":
                guard case .object(let props) = value else { throw LoadError(pointer: here, reason: "expected an object") }
                for (name, sub) in props {
                    properties.append((name, try JSONSchema(sub, pointer: here + "/" + name)))
                }
            case "required":
                guard case .array(let list) = value else { throw LoadError(pointer: here, reason: "expected an array") }
                required = try list.map { (item: JSONValue) throws(LoadError) -> String in
                    guard case .string(let s) = item else { throw LoadError(pointer: here, reason: "expected property names") }
                    return s
                }
            case "additionalProperties":
                guard case .bool(let allowed) = value else {
                    throw LoadError(pointer: here, reason: "only boolean additionalProperties is supported")
                }
                additionalPropertiesAllowed = allowed
            case "items":
                items = [try JSONSchema(value, pointer: here)]
            case "minItems": minItems = try intValue(value, key)
            case "minLength": minLength = try intValue(value, key)
            case "maxLength": maxLength = try intValue(value, key)
            case "minimum":
                guard case .number(let n) = value else { throw LoadError(pointer: here, reason: "expected a number") }
                minimum = n.doubleValue
            case "oneOf":
                guard case .array(let list) = value, !list.isEmpty else {
                    throw LoadError(pointer: here, reason: "expected a non-empty array")
                }
                var alternatives: [JSONSchema] = []
                for (i, item) in list.enumerated() {
                    alternatives.append(try JSONSchema(item, pointer: here + "/\(i)"))
                }
                oneOf = alternatives
            case "not":
                not = [try JSONSchema(value, pointer: here)]
            case "enum":
                guard case .array(let list) = value else { throw LoadError(pointer: here, reason: "expected an array") }
                enumValues = list
            case "format":
                guard case .string(let f) = value, f == "uri" || f == "date-time" else {
                    throw LoadError(pointer: here, reason: "only the 'uri' and 'date-time' formats are supported")
                }
                format = f
            default:
                throw LoadError(pointer: here, reason: "keyword '\(key)' is not supported")
            }
        }
    }

    /// Equal schemas: every keyword equal.
    public static func == (lhs: JSONSchema, rhs: JSONSchema) -> Bool {
        lhs.types == rhs.types && lhs.required == rhs.required
            && lhs.properties.map(\.name) == rhs.properties.map(\.name)
            && lhs.properties.map(\.schema) == rhs.properties.map(\.schema)
            && lhs.additionalPropertiesAllowed == rhs.additionalPropertiesAllowed && lhs.items == rhs.items
            && lhs.minItems == rhs.minItems && lhs.oneOf == rhs.oneOf && lhs.not == rhs.not
            && lhs.enumValues == rhs.enumValues && lhs.format == rhs.format && lhs.minLength == rhs.minLength
            && lhs.maxLength == rhs.maxLength && lhs.minimum == rhs.minimum
    }

    /// Hashes a subset of the keywords, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(types)
        hasher.combine(required)
        hasher.combine(properties.map(\.name))
        hasher.combine(format)
    }

    /// Validates `value`, returning one message per violation (empty when valid).
    public func validate(_ value: JSONValue) -> [String] {
        var errors: [String] = []
        check(value, at: "#", into: &errors)
        return errors
    }

    private func check(_ value: JSONValue, at path: String, into errors: inout [String]) {
        if let types, !types.contains(where: { Self.value(value, hasType: $0) }) {
            errors.append("\(path): expected \(types.joined(separator: " or ")), found \(value.typeName)")
            return
        }
        if let enumValues, !enumValues.contains(value) {
            errors.append("\(path): \(value.jsonText) is not one of \(enumValues.map(\.jsonText).joined(separator: ", "))")
        }
        switch value {
        case .string(let s):
            let length = s.count
            if let minLength, length < minLength { errors.append("\(path): string shorter than \(minLength)") }
            if let maxLength, length > maxLength { errors.append("\(path): string longer than \(maxLength)") }
            if let format, !Self.string(s, matchesFormat: format) {
                errors.append("\(path): '\(s)' is not a valid \(format)")
            }
        case .number(let n):
            if let minimum, n.doubleValue < minimum { errors.append("\(path): \(n.text) is less than \(minimum)") }
        case .array(let list):
            if let minItems, list.count < minItems { errors.append("\(path): fewer than \(minItems) items") }
            if let itemSchema = items.first {
                for (i, item) in list.enumerated() { itemSchema.check(item, at: "\(path)[\(i)]", into: &errors) }
            }
        case .object(let members):
            for name in required where value[name] == nil {
                errors.append("\(path)/\(name): required property is missing")
            }
            for (name, sub) in properties {
                if let member = value[name] { sub.check(member, at: "\(path)/\(name)", into: &errors) }
            }
            if !additionalPropertiesAllowed {
                let declared = Set(properties.map(\.name))
                for member in members where !declared.contains(member.key) {
                    errors.append("\(path)/\(member.key): property is not allowed")
                }
            }
        case .null, .bool:
            break
        }
        if !oneOf.isEmpty {
            let matches = oneOf.filter { $0.validate(value).isEmpty }.count
            if matches != 1 {
                errors.append("\(path): expected exactly one of \(oneOf.count) alternatives to match, \(matches) matched")
            }
        }
        if let forbidden = not.first, forbidden.validate(value).isEmpty {
            errors.append("\(path): must not match the 'not' schema (this property must be absent)")
        }
    }

    private static func value(_ value: JSONValue, hasType type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object):
            return true
        case ("number", .number): return true
        case ("integer", .number(let n)): return n.isInteger
        default: return false
        }
    }

    static func string(_ s: String, matchesFormat format: String) -> Bool {
        switch format {
        case "uri": return AbsoluteURI.isAbsolute(s)
        case "date-time": return isDateTime(s)
        default: return true
        }
    }

    /// ISO 8601 dates and date-times, with or without fraction and zone, like .NET's `DateTime.TryParse` accepts.
    private static func isDateTime(_ s: String) -> Bool {
        let digits = "[0-9]"
        let pattern = "^\(digits){4}-\(digits){2}-\(digits){2}([Tt ]\(digits){2}:\(digits){2}(:\(digits){2}(\\.[0-9]+)?)?([Zz]|[+-]\(digits){2}:?\(digits){2})?)?$"
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(s.startIndex..<s.endIndex, in: s)
        guard regex.firstMatch(in: s, range: range) != nil else { return false }
        let parts = s.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return false }
        return (1...12).contains(parts[1]) && (1...31).contains(parts[2])
    }
}
