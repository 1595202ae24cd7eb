import Foundation
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

    /// Why a file name made of `stem` and `ext` is refused: the stem must not be blank, so
    /// that a rename to "" never leaves a file called `.docx`.
    static func problem(withStem stem: String, ext: String) -> String? {
        guard !stem.trimmingCharacters(in: .whitespaces).isEmpty else { return "the name before the extension is empty" }
        return problem(with: stem + ext)
    }

    /// Why an exact file name is refused, including a blank stem (`.docx`).
    static func fileNameProblem(_ name: String) -> String? {
        let (stem, ext) = WOPIBackend.split(name)
        return ext.isEmpty ? problem(with: name) : problem(withStem: stem, ext: ext)
    }

    /// `name` with every refused character replaced, never empty.
    static func sanitized(_ name: String) -> String { WOPIName.sanitized(name).rawValue }
}
