import Foundation
import WOPICore

/// The CheckFileInfo fields browser editors need, sent only when the host has some
/// (``WOPIHostConfiguration/webClients``), so what Office for iOS receives stays as it was.
///
/// - `PostMessageOrigin` (CheckFileInfo.rst; online/postmessage.rst, "PostMessageOrigin"): the
///   exact origin of the host page, the public URL's scheme, host and port, to which the editor
///   addresses its messages.
/// - `HostViewUrl`, `HostEditUrl`: the host page (`/open/<id>`); `FileSharingUrl`: the folder page
///   that holds the share button; `DownloadUrl`: the web front's download.
/// - Collabora Online's (`wsd/reference.md`, "CheckFileInfo extensions"): `EnableOwnerTermination`
///   for the file's owner, and `UserExtraInfo`, an object Collabora shows beside the user (avatar,
///   mail); this host keeps neither, so it is empty. `TemplateSource` (`templateSource(of:for:notAfter:)` below)
///   for a new document made from a template.
extension CheckFileInfoResponse {
    mutating func addBrowserEditorFields(file: FileRecord, role: AccessRole, backend: WOPIBackend) {
        postMessageOrigin = backend.publicOrigin
        hostViewUrl = backend.hostPageURL(file.id, action: .view)
        hostEditUrl = backend.hostPageURL(file.id, action: .edit)
        fileSharingUrl = "\(backend.publicURLString)/folders/\(file.containerID.rawValue)"
        downloadUrl = "\(backend.publicURLString)/files/\(file.id.rawValue)/download"
        enableOwnerTermination = role == .owner
        userExtraInfo = [:]
    }
}

extension WOPIBackend {
    /// CheckFileInfo's `TemplateSource` for `file` (WOPICore's `TemplateRules`): the template's GetFile URL with
    /// a token for this user on the template, expiring with their token on the document; `nil` once the
    /// document has content, when it was made from no template, or when the user can no longer read it.
    func templateSource(of file: FileRecord, for userID: ResourceID, notAfter: Date) async throws -> String? {
        // Only an empty file can qualify: every other CheckFileInfo costs no extra read.
        guard file.size == 0, let templateOrigins, let templateID = try await templateOrigins.templateOrigin(of: file.id) else { return nil }
        let canRead = try await access(to: templateID, isContainer: false, by: userID)?.role != nil
        guard TemplateRules.includesTemplateSource(madeFromTemplate: true, fileSize: file.size, callerCanReadTemplate: canRead) else { return nil }
        let token = issueToken(user: userID, resource: .file(templateID), notAfter: notAfter).token
        return "\(wopiSrc(.file(templateID)))/contents?access_token=\(token)"
    }

    /// The host page that opens `file` in a browser editor: `<public URL>/open/<id>?action=…`.
    func hostPageURL(_ file: ResourceID, action: WebClientActions.Kind) -> String {
        "\(publicURLString)/open/\(file.rawValue)?action=\(action.rawValue)"
    }
}
