import Foundation
import WOPICore

/// Which template each new document was made from, so CheckFileInfo can hand a browser editor the
/// template (`TemplateSource`) until the document's first save, as WOPICore's `TemplateRules` decide.
///
/// Conform alongside ``WOPIStore`` to offer "New document from template" in the web front;
/// `SQLiteStore` and `PostgresStore` do. A file's record goes when the file or its template is
/// deleted (purged from the trash, or with its owner).
public protocol TemplateOriginStore: Sendable {
    /// Records that `fileID` was made from `templateID`, replacing any earlier record of `fileID`.
    ///
    /// - Throws: `WOPIStoreError.notFound` when either file does not exist.
    func recordTemplateOrigin(of fileID: ResourceID, template templateID: ResourceID) async throws

    /// The template `fileID` was made from; `nil` when it was not made from one (or the template is gone).
    func templateOrigin(of fileID: ResourceID) async throws -> ResourceID?
}
