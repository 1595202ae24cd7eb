import Foundation
import HTTPTypes
import Hummingbird
import WOPICore
import WOPIHost

/// Uploading files from the web front.
extension WebFrontController {
    /// `POST /folders/<id>/upload`: a `multipart/form-data` body whose first part is `csrf` and whose
    /// `files` parts are files. Each file streams to the blob store; a name already used in the folder
    /// gets a free variant (`Budget (1).xlsx`). A file above ``WOPIHostConfiguration/maximumFileSize``
    /// stops the upload with 413 and a message naming it, and the files of this request are removed
    /// again, so a refused upload changes nothing.
    func upload(_ request: Request, context: Context) async throws -> Response {
        let (language, _) = Self.language(request)
        let strings = language.webFront
        guard let (session, user) = try await backend.webSession(request) else { return seeOther(basePath + "/") }
        guard let id = context.parameters.get("id").flatMap(ResourceID.init), let folder = try await owned({ try await backend.container(id, for: user) }) else {
            return try messagePage(strings.notFound, session: session, user: user, language: language, status: .notFound)
        }
        let expired = try messagePage(strings.formExpired, session: session, user: user, language: language, status: .forbidden)
        guard backend.originRefusal(request) == nil,
              let reader = MultipartFormReader(contentType: request.headers[.contentType], body: request.body) else { return expired }
        // The token must come first (browsers send fields in document order), so nothing is stored before it is checked.
        guard let first = try? await reader.nextPart(), first.name == "csrf", first.filename == nil,
              let token = try? await reader.text(limit: 256), session.accepts(csrf: token) else { return expired }

        var created: [FileRecord] = []
        do {
            while let part = try await reader.nextPart() {
                guard part.name == "files", let filename = part.filename, !filename.isEmpty else { continue }
                let name = NameRules.sanitizedFileName(String(filename.split(separator: "/").last ?? Substring(filename)))
                let blob: StoredBlob
                do {
                    blob = try await backend.blobs.write(reader.partBody, maximumSize: backend.configuration.maximumFileSize)
                } catch BlobStoreError.tooLarge {
                    // Read the rest, so the browser receives the answer instead of a reset connection.
                    while try await reader.nextPart() != nil {}
                    await remove(created)
                    let limit = ByteSizeText.exact(backend.configuration.maximumFileSize)
                    return try await folderPage(folder.id, session: session, user: user, language: language,
                                                error: PageText.fill(strings.tooLarge, filename, limit),
                                                status: .contentTooLarge)
                }
                do {
                    created.append(try await backend.createFile(namedLike: name, in: folder.id, blob: blob))
                } catch {
                    try? await backend.blobs.delete(blob.key)
                    throw error
                }
            }
        } catch is MultipartFormReader.Problem {
            await remove(created)
            return try await folderPage(folder.id, session: session, user: user, language: language, error: strings.uploadFailed,
                                        status: .badRequest)
        } catch {
            await remove(created)
            throw error
        }
        guard !created.isEmpty else {
            return try await folderPage(folder.id, session: session, user: user, language: language, error: strings.noFilesChosen,
                                        status: .badRequest)
        }
        return seeOther("\(basePath)/folders/\(folder.id.rawValue)")
    }

    /// Takes back the files an upload created before it was refused.
    private func remove(_ files: [FileRecord]) async {
        for file in files {
            if let key = try? await backend.store.deleteFile(file.id, lock: nil, now: backend.configuration.now()) {
                try? await backend.blobs.delete(key)
            }
        }
    }
}
