import Foundation
import WOPICore

/// The one place the HTTP layer turns client-supplied names into checked ones; the rules
/// themselves are ``WOPIName``'s.
package enum NameRules {
    /// Decodes a UTF-7 header value (PutRelativeFile, RenameFile, container names).
    package static func decodeHeader(_ value: String) throws(WOPIError) -> String {
        do { return try UTF7.decode(value) } catch { throw .badRequest("name header is not valid UTF-7: \(error)") }
    }

    /// Why `name` cannot be a container name, or `nil` when it can.
    package static func problem(with name: String) -> WOPIName.ValidationError? {
        WOPIName.problem(withName: name)
    }

    /// Why a file name made of `stem` and `ext` is refused; a blank stem is, so that a rename to
    /// "" never leaves a file called `.docx`.
    package static func problem(withStem stem: String, ext: String) -> WOPIName.ValidationError? {
        fileNameProblem(stem + ext)
    }

    /// Why an exact file name is refused, including one that is only an extension (`.docx`).
    package static func fileNameProblem(_ name: String) -> WOPIName.ValidationError? {
        WOPIName.problem(withFileName: name)
    }

    /// `name` with every refused character replaced, never empty.
    package static func sanitized(_ name: String) -> String { WOPIName.sanitized(name).rawValue }

    /// A file name made from `name`: refused characters replaced, and a stem before a lone extension.
    package static func sanitizedFileName(_ name: String) -> String { WOPIName.sanitized(fileName: name).rawValue }
}
