import WOPICore

/// The one place the HTTP layer turns client-supplied names into checked ones.
enum NameRules {
    /// Decodes a UTF-7 header value (PutRelativeFile, RenameFile, container names).
    static func decodeHeader(_ value: String) throws(WOPIError) -> String {
        do { return try UTF7.decode(value) } catch { throw .badRequest("name header is not valid UTF-7: \(error)") }
    }

    /// Why `name` cannot be a file or container name, or `nil` when it can.
    static func problem(with name: String) -> String? {
        do { _ = try WOPIName(name); return nil } catch { return "\(error)" }
    }

    /// `name` with every refused character replaced, never empty.
    static func sanitized(_ name: String) -> String { WOPIName.sanitized(name).rawValue }
}
