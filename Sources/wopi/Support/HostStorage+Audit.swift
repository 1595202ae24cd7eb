import Foundation
import WOPIHost

extension HostStorage {
    /// Records an admin command's event in the store's audit trail, where every host records its own,
    /// and appends it to `export` (`--audit-log PATH`) when one is given.
    func audit(_ event: AuditEvent, export: AuditLog? = nil) async throws {
        export?.record(event)
        guard let trail = store as? any AuditStore else { return }
        do { try await trail.appendAuditEvents([event]) } catch {
            throw CLIError.Failure("the change was made, but its audit event could not be recorded: \(error)")
        }
    }
}

/// `--audit-log PATH` of an admin command: the export file, opened for appending.
func openAuditExport(_ path: String?) throws -> AuditLog? {
    try path.map { path in
        do { return try AuditLog(path: path) } catch { throw CLIError.Failure(error.localizedDescription) }
    }
}
