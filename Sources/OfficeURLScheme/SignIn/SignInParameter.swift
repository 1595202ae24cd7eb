/// A `name=value` parameter of an app-to-app sign-in URL that the library does not model, kept in order.
public struct SignInParameter: Sendable, Hashable, Codable {
    /// The parameter name as it arrived.
    public let name: String
    /// The decoded value.
    public let value: String

    /// Creates a parameter.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Splits and joins the `name=value&…` part of sign-in URLs (apptoapp.rst: "The values of the
/// parameters should be URL encoded"). Names match case-insensitively.
struct SignInQuery {
    var parameters: [(name: String, value: String)]

    init(parameters: [(name: String, value: String)]) {
        self.parameters = parameters
    }

    /// Parses `rest`, the text after `scheme:`; a leading `//` or `?` is tolerated.
    init(parsing rest: String) throws(OfficeURLError) {
        var text = Substring(rest)
        if text.hasPrefix("//") { text = text.dropFirst(2) }
        if text.hasPrefix("?") { text = text.dropFirst() }
        parameters = []
        var seen = Set<String>()
        for item in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else { throw .malformedParameter(String(item)) }
            let name = ArgumentEncoding.decodeText(String(item[..<eq]))
            // Older docs show `tk` unencoded; decoding leaves such a value unchanged.
            let value = ArgumentEncoding.decodeText(String(item[item.index(after: eq)...]))
            guard seen.insert(name.lowercased()).inserted else { throw .duplicateArgument(name) }
            parameters.append((name, value))
        }
    }

    /// Removes and returns the value of `name`, matched case-insensitively.
    mutating func take(_ name: String) -> String? {
        guard let index = parameters.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        return parameters.remove(at: index).value
    }

    var extras: [SignInParameter] { parameters.map { SignInParameter(name: $0.name, value: $0.value) } }

    var encoded: String {
        parameters.map { "\(ArgumentEncoding.encodeStrict($0.name))=\(ArgumentEncoding.encodeStrict($0.value))" }
            .joined(separator: "&")
    }

    /// Whether `rest` looks like sign-in parameters containing any of `names`.
    static func looksLike(_ rest: String, containing names: [String]) -> Bool {
        guard let query = try? SignInQuery(parsing: rest) else { return false }
        let present = Set(query.parameters.map { $0.name.lowercased() })
        return names.contains { present.contains($0) }
    }
}
