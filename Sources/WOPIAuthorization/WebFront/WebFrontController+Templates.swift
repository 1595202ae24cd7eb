import Foundation
import Hummingbird
import WOPICore
import WOPIHost

/// "New document from template" in the web front.
extension WebFrontController {
    /// `POST /files/<id>/new-from-template`: an empty document beside the template `id`, named after
    /// it with the document's extension (WOPICore's `TemplateRules`; a free variant when the name is taken),
    /// recorded as made from it, then opened for editing on the host page of the first browser editor
    /// that edits it. The editor reads the template through CheckFileInfo's `TemplateSource` and
    /// saves the new document with an ordinary PutFile.
    func newFromTemplate(_ request: Request, context: Context) async throws -> Response {
        let post: FormPost
        switch try await formPost(request, context: context) {
        case .success(let value): post = value
        case .failure(let refusal): return refusal.response
        }
        guard let template = try await owned({ try await backend.file(post.id, for: post.user) }) else { return try notFound(post) }
        guard let editor = await templateEditor(for: template), let origins = backend.templateOrigins else {
            return try await folderPage(template.containerID, post, error: post.language.webFront.notATemplate, status: .badRequest)
        }
        let blob = try await backend.blobs.write(DataChunks(data: Data()), maximumSize: 0)
        let document: FileRecord
        do {
            document = try await backend.createFile(namedLike: editor.documentName, in: template.containerID, blob: blob)
        } catch {
            try? await backend.blobs.delete(blob.key)
            throw error
        }
        do {
            try await origins.recordTemplateOrigin(of: document.id, template: template.id)
        } catch {
            // Without its record the document would open blank: take it back.
            if let key = try? await backend.store.deleteFile(document.id, lock: nil, now: backend.configuration.now()) {
                try? await backend.blobs.delete(key)
            }
            throw error
        }
        return seeOther("\(basePath)/open/\(document.id.rawValue)?action=edit&client=\(editor.client)")
    }

    /// The name of a document made from `template` and the browser editor that edits it; `nil` when
    /// `template` is no template, no browser editor edits the document, or the store keeps no
    /// template records.
    func templateEditor(for template: FileRecord) async -> (documentName: String, client: String)? {
        guard backend.templateOrigins != nil, let clients = backend.configuration.webClients,
              let name = TemplateRules.documentName(forTemplateNamed: template.name),
              let client = await clients.firstClient(editing: name) else { return nil }
        return (name, client.name)
    }
}
