import Foundation
import OfficeURLScheme
import WOPICore

/// The content of a folder page: breadcrumbs, the upload and new-folder forms, and one row per
/// folder and file with its size, modified time, download and Office links, and a "More" panel
/// (`<details>`, so it needs no script) holding rename, delete and share.
struct FolderPage: Sendable {
    /// Root first, this folder last.
    var path: [ContainerRecord]
    var folders: [ContainerRecord]
    var files: [FileRecord]
    /// The Office links of each file that has them.
    var officeLinks: [ResourceID: OfficeOpenLinks]
    var csrf: String
    var language: PageLanguage
    var basePath: String
    var maximumFileSize: Int64
    /// An alert shown above the listing.
    var error: String?
    /// On the root page, what others shared with the user (issue 13).
    var shared: [SharedEntry] = []

    /// One item someone shared with the user: opened read-only through a share page, and in Office by role.
    struct SharedEntry: Sendable {
        var name: String
        var isFolder: Bool
        var ownerName: String
        var role: AccessRole
        /// A read-only share page for the item, made for the user.
        var pageURL: String
        /// For a file Office opens: the edit link is offered only to editors.
        var officeLinks: OfficeOpenLinks?
    }

    var folder: ContainerRecord? { path.last }

    /// The heading: "My files" for the root, else the folder's name.
    var title: String {
        guard let folder, folder.parentID != nil else { return language.webFront.myFiles }
        return folder.name
    }

    var html: String {
        let strings = language.webFront
        guard let folder else { return "" }
        // At the root the heading says it all; below it the breadcrumbs lead back up.
        var html = path.count > 1 ? breadcrumbs(strings) : ""
        html += "<h1>\(HTMLText.escape(title))</h1>"
        if let error { html += "<p class=\"error\" role=\"alert\" id=\"error\">\(HTMLText.escape(error))</p>" }
        let folderPath = "\(basePath)/folders/\(folder.id.rawValue)"
        let limit = Self.size(maximumFileSize)
        html += """
            <form class="tools" id="upload" method="post" action="\(HTMLText.escape(folderPath))/upload" enctype="multipart/form-data" \
            data-max-size="\(maximumFileSize)" data-too-large="\(HTMLText.escape(strings.tooLarge))" data-limit="\(HTMLText.escape(limit))" \
            data-uploading="\(HTMLText.escape(strings.uploading))" data-uploaded="\(HTMLText.escape(strings.uploaded))" \
            data-failed="\(HTMLText.escape(strings.uploadFailed))">\
            \(csrfField)<label for="files">\(HTMLText.escape(strings.chooseFiles))</label>\
            <input type="file" id="files" name="files" multiple required aria-describedby="limit">\
            <p class="muted" id="limit">\(HTMLText.fill(strings.sizeLimit, limit))</p>\
            <button type="submit" id="upload-button">\(HTMLText.escape(strings.upload))</button>\
            <progress id="upload-progress" max="100" value="0" hidden aria-label="\(HTMLText.escape(strings.uploading))"></progress>\
            <p id="upload-status" role="status" aria-live="polite"></p></form>\
            <details class="tools"><summary>\(HTMLText.escape(strings.newFolder))</summary>\
            <form method="post" action="\(HTMLText.escape(folderPath))/create">\(csrfField)\
            <label for="new-folder">\(HTMLText.escape(strings.folderName))</label>\
            <input type="text" id="new-folder" name="name" required maxlength="255" autocomplete="off">\
            <button type="submit">\(HTMLText.escape(strings.create))</button></form></details>
            """
        var rows = folders.map { folderRow($0, strings) } + files.map { fileRow($0, strings) }
        if rows.isEmpty { rows = ["<li class=\"muted\">\(HTMLText.escape(strings.emptyFolder))</li>"] }
        html += "<ul id=\"listing\" aria-label=\"\(HTMLText.escape(title))\">\(rows.joined())</ul>"
        if !shared.isEmpty {
            html += "<h2 id=\"shared-heading\">\(HTMLText.escape(strings.sharedWithMe))</h2>"
                + "<ul id=\"shared\" aria-labelledby=\"shared-heading\">\(shared.map { sharedRow($0, strings) }.joined())</ul>"
        }
        return html
    }

    private var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTMLText.escape(csrf))\">" }

    private func breadcrumbs(_ strings: WebFrontStrings) -> String {
        let items = path.enumerated().map { index, container -> String in
            let name = container.parentID == nil ? strings.myFiles : container.name
            if index == path.count - 1 { return "<li><span aria-current=\"page\">\(HTMLText.escape(name))</span></li>" }
            return "<li><a href=\"\(HTMLText.escape(basePath))/folders/\(container.id.rawValue)\">\(HTMLText.escape(name))</a></li>"
        }
        return "<nav class=\"crumbs\" aria-label=\"\(HTMLText.escape(strings.breadcrumbs))\"><ol>\(items.joined())</ol></nav>"
    }

    private func folderRow(_ child: ContainerRecord, _ strings: WebFrontStrings) -> String {
        let itemPath = "\(basePath)/folders/\(child.id.rawValue)"
        return """
            <li data-name="\(HTMLText.escape(child.name))" data-kind="folder"><a class="name" href="\(HTMLText.escape(itemPath))">\
            <img src="\(HTMLText.escape(basePath))/assets/icon.svg" alt="" width="18" height="18" class="icon"> \(HTMLText.escape(child.name))</a><div class="meta">\(HTMLText.escape(strings.folder))</div>\
            \(actions(itemPath: itemPath, name: child.name, strings))</li>
            """
    }

    private func fileRow(_ file: FileRecord, _ strings: WebFrontStrings) -> String {
        let itemPath = "\(basePath)/files/\(file.id.rawValue)"
        var row = """
            <li data-name="\(HTMLText.escape(file.name))" data-kind="file"><a class="name" href="\(HTMLText.escape(itemPath))/download" \
            download>\(HTMLText.escape(file.name))</a><div class="meta"><span class="size">\(HTMLText.escape(Self.size(file.size)))</span> · \
            <time datetime="\(HTMLText.escape(file.modifiedAt.formatted(.iso8601)))">\(HTMLText.escape(Self.time(file.modifiedAt)))</time></div>
            """
        if let links = officeLinks[file.id] {
            row += """
                <div class="open"><a class="office-edit" href="\(HTMLText.escape(links.edit.percentEncodedString))">\
                \(HTMLText.fill(strings.openIn, links.shortName))</a>\
                <a class="office-view" href="\(HTMLText.escape(links.view.percentEncodedString))">\(HTMLText.fill(strings.viewIn, links.shortName))</a>\
                <a class="app-store" href="\(HTMLText.escape(links.appStoreURL.absoluteString))" rel="noopener">\
                \(HTMLText.fill(strings.getApp, links.shortName))</a></div>
                """
        }
        return row + actions(itemPath: itemPath, name: file.name, strings) + "</li>"
    }

    private func sharedRow(_ entry: SharedEntry, _ strings: WebFrontStrings) -> String {
        let by = HTMLText.fill(entry.role >= .editor ? strings.sharedByEditor : strings.sharedByViewer, entry.ownerName)
        var row = """
            <li data-name="\(HTMLText.escape(entry.name))" data-kind="\(entry.isFolder ? "folder" : "file")"><a class="name" href="\(HTMLText.escape(entry.pageURL))">\
            \(HTMLText.escape(entry.name))</a><div class="meta">\(entry.isFolder ? HTMLText.escape(strings.folder) + " · " : "")\(by)</div>
            """
        if let links = entry.officeLinks {
            row += "<div class=\"open\">"
            if entry.role >= .editor {
                row += "<a class=\"office-edit\" href=\"\(HTMLText.escape(links.edit.percentEncodedString))\">\(HTMLText.fill(strings.openIn, links.shortName))</a>"
            }
            row += "<a class=\"office-view\" href=\"\(HTMLText.escape(links.view.percentEncodedString))\">\(HTMLText.fill(strings.viewIn, links.shortName))</a></div>"
        }
        return row + "</li>"
    }

    /// Rename, delete and share for one item, each its own form with the CSRF token.
    private func actions(itemPath: String, name: String, _ strings: WebFrontStrings) -> String {
        let fieldID = "rename-" + String(itemPath.split(separator: "/").last ?? "")
        return """
            <details><summary>\(HTMLText.escape(strings.actions))<span class="visually-hidden">: \(HTMLText.escape(name))</span></summary>\
            <form method="post" action="\(HTMLText.escape(itemPath))/rename">\(csrfField)\
            <label for="\(HTMLText.escape(fieldID))">\(HTMLText.escape(strings.newName))</label>\
            <input type="text" id="\(HTMLText.escape(fieldID))" name="name" value="\(HTMLText.escape(name))" required maxlength="255" autocomplete="off">\
            <button type="submit" class="rename">\(HTMLText.escape(strings.rename))</button></form>\
            <form method="post" action="\(HTMLText.escape(itemPath))/share" class="inline">\(csrfField)\
            <button type="submit" class="share">\(HTMLText.escape(strings.share))</button></form> \
            <form method="post" action="\(HTMLText.escape(itemPath))/delete" class="inline">\(csrfField)\
            <button type="submit" class="delete danger">\(HTMLText.escape(strings.delete))</button></form></details>
            """
    }

    /// A size for people: "12 KB".
    static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }

    /// A time for people, in UTC and unambiguous in every language: "2026-11-23 19:05 UTC".
    static func time(_ date: Date) -> String {
        // ISO 8601 in UTC is "2026-11-23T19:05:00Z": keep the minutes, swap the "T" for a space.
        String(date.formatted(.iso8601).prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}
