import Foundation
import PostgresNIO
import WOPICore
import WOPIHost

/// Which template each new document was made from, in PostgreSQL (table `template_origins`).
extension PostgresStore: TemplateOriginStore {
    /// Records that `fileID` was made from `templateID`, replacing an earlier record; `WOPIStoreError.notFound`
    /// when either file does not exist.
    public func recordTemplateOrigin(of fileID: ResourceID, template templateID: ResourceID) async throws {
        // Inserted only when both files exist, so an unknown id is "not found", never a constraint error.
        let recorded = try await all("""
            INSERT INTO template_origins (file_id, template_id)
            SELECT document.id, template.id FROM files AS document, files AS template
            WHERE document.id = \(fileID.rawValue) AND template.id = \(templateID.rawValue)
            ON CONFLICT (file_id) DO UPDATE SET template_id = excluded.template_id
            RETURNING file_id
            """) { try $0.decode(String.self) }
        guard !recorded.isEmpty else { throw WOPIStoreError.notFound }
    }

    /// The template `fileID` was made from, if any.
    public func templateOrigin(of fileID: ResourceID) async throws -> ResourceID? {
        try await first("SELECT template_id FROM template_origins WHERE file_id = \(fileID.rawValue)") { try $0.decode(String.self) }
            .map { try ResourceID.stored($0, column: "template_origins.template_id") }
    }
}
