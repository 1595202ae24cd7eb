import Foundation
import GRDB
import WOPICore
import WOPIHost

/// The embedded `TemplateOriginStore`: table `template_origins` (migration `v10-template-origins`).
extension SQLiteStore: TemplateOriginStore {
    /// Records that `fileID` was made from `templateID`, replacing an earlier record; `WOPIStoreError.notFound`
    /// when either file does not exist.
    public func recordTemplateOrigin(of fileID: ResourceID, template templateID: ResourceID) async throws {
        try await pool.write { db in
            // Inserted only when both files exist, so an unknown id is "not found", never a constraint error.
            try db.execute(sql: """
                INSERT INTO template_origins (file_id, template_id)
                SELECT document.id, template.id FROM files AS document, files AS template WHERE document.id = ? AND template.id = ?
                ON CONFLICT (file_id) DO UPDATE SET template_id = excluded.template_id
                """, arguments: [fileID.rawValue, templateID.rawValue])
            guard db.changesCount > 0 else { throw WOPIStoreError.notFound }
        }
    }

    /// The template `fileID` was made from, if any.
    public func templateOrigin(of fileID: ResourceID) async throws -> ResourceID? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT template_id FROM template_origins WHERE file_id = ?", arguments: [fileID.rawValue])
        }.map { try ResourceID.stored($0, column: "template_origins.template_id") }
    }
}
