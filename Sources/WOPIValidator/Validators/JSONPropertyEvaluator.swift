import Foundation

/// Evaluates one ``JSONPropertyCheck`` against the value its path selected, with the rules of the original's
/// `JsonContentValidator` property validators.
enum JSONPropertyEvaluator {
    /// Properties that, without an expected value, must hold a Unix time in milliseconds within ten years of now.
    private static let timestampKeys: Set<String> = ["AccessTokenExpiry", "ServerTime", "AccessTokenValidFrom"]

    /// The failure message, or `nil` when the check passes.
    static func failure(_ check: JSONPropertyCheck, actual: JSONValue?, state: SavedState) -> String? {
        switch check.kind {
        case .boolean, .integer, .long, .string, .array:
            return equalityFailure(check, actual: actual, state: state)
        case .stringRegex:
            return regexFailure(check, actual: actual)
        case .absoluteURL:
            return urlFailure(check, actual: actual)
        case .responseBody:
            return responseBodyFailure(check, actual: actual)
        case .arrayLength:
            return arrayLengthFailure(check, actual: actual)
        }
    }

    static func isNullOrEmpty(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: return true
        case .array(let items)?: return items.isEmpty
        case .object(let members)?: return members.isEmpty
        case .string(let s)?: return s.isEmpty
        default: return false
        }
    }

    // MARK: Typed values, as Newtonsoft's Value<T>() converts them

    enum Typed: Equatable {
        case bool(Bool)
        case int(Int64)
        case string(String)
    }

    /// Converts a JSON value to the check's type; `nil` when the conversion fails.
    private static func typed(_ value: JSONValue, as kind: JSONPropertyCheck.Kind) -> Typed? {
        switch kind {
        case .boolean:
            switch value {
            case .bool(let b): return .bool(b)
            case .string(let s): return parseBool(s).map(Typed.bool)
            case .number(let n): return .bool(n.doubleValue != 0)
            default: return nil
            }
        case .integer, .long, .arrayLength:
            let number: Int64?
            switch value {
            case .number(let n): number = n.int64Value ?? (n.doubleValue.isFinite ? Int64(exactly: n.doubleValue.rounded(.toNearestOrEven)) : nil)
            case .string(let s): number = Int64(s.trimmingWhitespace())
            case .bool(let b): number = b ? 1 : 0
            default: number = nil
            }
            guard let number else { return nil }
            if kind != .long, Int32(exactly: number) == nil { return nil }
            return .int(number)
        default:
            return value.scalarText.map(Typed.string)
        }
    }

    /// Converts expected text (an attribute or saved state) to the check's type, like `Convert.ChangeType`.
    private static func typed(text: String, as kind: JSONPropertyCheck.Kind) -> Typed? {
        switch kind {
        case .boolean: return parseBool(text).map(Typed.bool)
        case .integer, .arrayLength: return Int32(text.trimmingWhitespace()).map { .int(Int64($0)) }
        case .long: return Int64(text.trimmingWhitespace()).map(Typed.int)
        default: return .string(text)
        }
    }

    private static func parseBool(_ text: String) -> Bool? {
        switch text.trimmingWhitespace().lowercased() {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }

    private static func format(_ t: Typed) -> String {
        switch t {
        case .bool(let b): return b ? "True" : "False"
        case .int(let i): return String(i)
        case .string(let s): return s
        }
    }

    // MARK: Checks

    private static func equalityFailure(_ check: JSONPropertyCheck, actual: JSONValue?, state: SavedState) -> String? {
        if let failure = baseEqualityFailure(check, actual: actual, state: state) { return failure }
        if check.kind == .string, let suffix = check.endsWith, !suffix.trimmingWhitespace().isEmpty {
            // The original reads the value again here; an absent value cannot end with anything.
            return endsWithFailure(actual?.scalarText ?? "", suffix: suffix, ignoreCase: check.ignoreCase)
        }
        return nil
    }

    private static func baseEqualityFailure(_ check: JSONPropertyCheck, actual: JSONValue?, state: SavedState) -> String? {
        guard let actual, !isNullOrEmpty(actual) else {
            return check.isRequired ? "Required property missing" : nil
        }
        let defaultText = check.kind == .array ? check.containsValue : check.expectedValue
        var expected = defaultText.flatMap { typed(text: $0, as: check.kind) }
        var hasStateValue = false
        if let key = check.expectedStateKey, let saved = state[key] {
            if let value = typed(text: saved, as: check.kind) {
                expected = value
                hasStateValue = true
            } else if defaultText == nil {
                return "ExpectedStateValue should be of type : \(check.kind.rawValue)"
            }
        }
        guard defaultText != nil || hasStateValue, let expected else {
            if timestampKeys.contains(check.name) {
                return reasonableTimestamp(actual) ? nil
                    : "\(check.name) value isn't reasonable, it's out of [currentTime-10 years, currentTime+10 years] boundary"
            }
            return nil
        }

        if check.kind == .array {
            guard case .array(let items) = actual else { return "Expected: '\(format(expected))', Actual: '\(actual.jsonText)'" }
            let strings = items.compactMap(\.scalarText)
            guard case .string(let wanted) = expected else { return nil }
            return strings.contains(where: { $0.lowercased() == wanted.lowercased() }) ? nil
                : "Expected: '\(wanted)', Actual: '\(actual.jsonText)'"
        }

        let typedActual = typed(actual, as: check.kind)
        let actualText = typedActual.map(format) ?? actual.scalarText ?? actual.jsonText
        let matches: Bool
        if check.kind == .string, check.ignoreCase, case .string(let a)? = typedActual, case .string(let e) = expected {
            matches = a.lowercased() == e.lowercased()
            if !matches { return "Expected: '\(e) (case-insensitive)', Actual: '\(a)'" }
        } else {
            matches = typedActual == expected
            if !matches { return "Expected: '\(format(expected))', Actual: '\(actualText)'" }
        }
        return nil
    }

    private static func endsWithFailure(_ actual: String, suffix: String, ignoreCase: Bool) -> String? {
        let holds = ignoreCase ? actual.lowercased().hasSuffix(suffix.lowercased()) : actual.hasSuffix(suffix)
        return holds ? nil : "Expected to end with: '\(suffix)', Actual: '\(actual)'"
    }

    private static func reasonableTimestamp(_ value: JSONValue) -> Bool {
        guard case .int(let ms)? = typed(value, as: .long) else { return false }
        let now = Date().timeIntervalSince1970 * 1000
        let tenYears = 10 * 365.25 * 24 * 3600 * 1000
        return Double(ms) >= now - tenYears && Double(ms) <= now + tenYears
    }

    private static func regexFailure(_ check: JSONPropertyCheck, actual: JSONValue?) -> String? {
        let pattern = check.expectedValue ?? ""
        if actual == nil && !check.isRequired { return nil }
        guard let text = actual?.scalarText, !text.isEmpty else {
            return "Value null doesn't match the expected regular expression '\(pattern)'"
        }
        var options: NSRegularExpression.Options = []
        if check.ignoreCase { options.insert(.caseInsensitive) }
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else {
            return "invalid regular expression '\(pattern)'"
        }
        let isMatch = regex.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
        if check.shouldMatch {
            return isMatch ? nil : "Value '\(text)' doesn't match the expected regular expression '\(pattern)'"
        }
        return isMatch ? "Value '\(text)' matched the regular expression, but should not '\(pattern)'" : nil
    }

    private static func urlFailure(_ check: JSONPropertyCheck, actual: JSONValue?) -> String? {
        guard let actual, !isNullOrEmpty(actual) else {
            return check.isRequired ? "Value is required but not provided." : nil
        }
        let value = actual.scalarText ?? actual.jsonText
        guard AbsoluteURI.isAbsolute(value) else { return "Cannot parse \(value) as absolute URL" }
        if check.mustIncludeAccessToken, URLQuery.parameter("access_token", in: value) == nil {
            return "URL '\(value)' does not include the 'access_token' query parameter"
        }
        return nil
    }

    private static func arrayLengthFailure(_ check: JSONPropertyCheck, actual: JSONValue?) -> String? {
        guard let actual else { return check.isRequired ? "Value is required but not provided." : nil }
        guard case .array(let items) = actual else {
            return check.isRequired ? "Value is of '\(actual.typeName)' type and is not an array type" : nil
        }
        let expected = check.expectedValue.flatMap { Int($0.trimmingWhitespace()) } ?? 0
        return items.count == expected ? nil : "Expected array to be of length '\(expected)', Actual: '\(items.count)'"
    }

    /// Compares with the expected JSON, where a member whose expected value is `"*"` matches anything and
    /// arrays are compared after sorting by `CoauthLockId` (the coauth table rule).
    private static func responseBodyFailure(_ check: JSONPropertyCheck, actual: JSONValue?) -> String? {
        guard let actual else { return check.isRequired ? "Value is required but not provided." : nil }
        guard let text = check.expectedValue, let expected = try? JSONParser(allowsRelaxedSyntax: true).parse(text) else {
            return "ExpectedValue is not JSON"
        }
        var wildcards = Set<String>()
        collectWildcards(expected, into: &wildcards)
        let normalizedExpected = sortedByLockId(expected)
        let normalizedActual = sortedByLockId(replacingWildcards(actual, wildcards))
        return normalizedExpected == normalizedActual ? nil
            : "Expected: '\(normalizedExpected.jsonText)', Actual: '\(normalizedActual.jsonText)'"
    }

    private static func collectWildcards(_ value: JSONValue, into names: inout Set<String>) {
        switch value {
        case .object(let members):
            for member in members {
                if member.value == .string("*") { names.insert(member.key) }
                collectWildcards(member.value, into: &names)
            }
        case .array(let items):
            for item in items { collectWildcards(item, into: &names) }
        default:
            break
        }
    }

    private static func replacingWildcards(_ value: JSONValue, _ names: Set<String>) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { (key: $0.key, value: names.contains($0.key) ? .string("*") : replacingWildcards($0.value, names)) })
        case .array(let items):
            return .array(items.map { replacingWildcards($0, names) })
        default:
            return value
        }
    }

    private static func sortedByLockId(_ value: JSONValue) -> JSONValue {
        guard case .array(let items) = value else { return value }
        return .array(items.sorted { ($0["CoauthLockId"]?.scalarText ?? "") < ($1["CoauthLockId"]?.scalarText ?? "") })
    }
}
