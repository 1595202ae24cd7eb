import Foundation
import OfficeURLScheme
import WOPICore
import WOPIHost

/// What a folder page (`folder.mustache`) shows: breadcrumbs, the upload and new-folder forms, and
/// one row per folder and file with its size, modified time, download and Office links ("New document
/// from template" for a template a browser editor fills), and a
/// "More" panel (`<details>`, so it needs no script) holding rename, delete and share.
struct FolderPage: Sendable {
    var strings: WebFrontStrings
    /// The heading: "My files" for the root, else the folder's name.
    var title: String
    /// Root first, this folder last; shown only below the root.
    var crumbs: [Crumb]
    var hasCrumbs: Bool
    /// An alert shown above the listing.
    var error: String?
    var folderPath: String
    var csrf: String
    var maximumFileSize: Int64
    /// The size limit for people, as configured ("512 MiB"), and the sentence that states it.
    var limit: String
    var sizeLimit: String
    var iconPath: String
    /// Folders first, then files.
    var rows: [Row]
    /// On the root page, what others shared with the user.
    var shared: [SharedRow]
    var hasShared: Bool
    /// The link to the Trash page.
    var trashPath: String
    var trashLabel: String

    /// One step of the breadcrumbs.
    struct Crumb: Sendable {
        var name: String
        var href: String
        var current: Bool
    }

    /// One folder or file of the listing.
    struct Row: Sendable {
        var name: String
        var isFolder: Bool
        var itemPath: String
        /// The id of the rename field, unique on the page.
        var renameField: String
        var size = ""
        var modifiedISO = ""
        var modified = ""
        var office: OfficeLinks?
        /// The host page that opens the file in a browser editor, when one handles it.
        var browser: BrowserLink?
        /// For a template a browser editor can fill: the form that makes a new document from it.
        var fromTemplate: TemplateForm?
    }

    /// "New document from template": a form posted to `/files/<id>/new-from-template`.
    struct TemplateForm: Sendable {
        var action: String
        var label: String
    }

    /// "Open in browser": the host page (`/open/<id>`) of a browser editor.
    struct BrowserLink: Sendable {
        var href: String
        var label: String
    }

    /// One item someone shared with the user: opened read-only through a share page, and in Office by role.
    struct SharedRow: Sendable {
        var name: String
        var isFolder: Bool
        var kind: String
        var pageURL: String
        /// "Shared by … · you can edit", filled.
        var sharedBy: String
        /// The edit link is offered only to editors.
        var canEdit: Bool
        var office: OfficeLinks?
    }

    /// A file's Office links with their texts filled in ("Open in Word").
    struct OfficeLinks: Sendable {
        var edit: String
        var view: String
        var appStore: String
        var openIn: String
        var viewIn: String
        var getApp: String

        init(_ links: OfficeOpenLinks, _ strings: WebFrontStrings) {
            edit = links.edit.percentEncodedString
            view = links.view.percentEncodedString
            appStore = links.appStoreURL.absoluteString
            openIn = PageText.fill(strings.openIn, links.shortName)
            viewIn = PageText.fill(strings.viewIn, links.shortName)
            getApp = PageText.fill(strings.getApp, links.shortName)
        }
    }

    /// One item someone shared with the user, before it is laid out.
    struct SharedEntry: Sendable {
        var name: String
        var isFolder: Bool
        var ownerName: String
        var role: AccessRole
        /// A read-only share page for the item, made for the user.
        var pageURL: String
        /// For a file Office opens.
        var officeLinks: OfficeOpenLinks?
    }

    /// The page of `path`'s last folder, holding `folders` and `files`.
    init(path: [ContainerRecord], folders: [ContainerRecord], files: [FileRecord], officeLinks: [ResourceID: OfficeOpenLinks],
         csrf: String, language: PageLanguage, basePath: String, maximumFileSize: Int64, error: String?, shared: [SharedEntry],
         openInBrowser: Set<ResourceID> = [], templates: Set<ResourceID> = []) {
        let strings = language.webFront
        let folder = path.last
        self.strings = strings
        self.title = folder.flatMap { $0.parentID == nil ? nil : $0.name } ?? strings.myFiles
        self.crumbs = path.enumerated().map { index, container in
            Crumb(name: container.parentID == nil ? strings.myFiles : container.name, href: "\(basePath)/folders/\(container.id.rawValue)",
                  current: index == path.count - 1)
        }
        self.hasCrumbs = path.count > 1
        self.error = error
        self.folderPath = "\(basePath)/folders/\(folder?.id.rawValue ?? "")"
        self.csrf = csrf
        self.maximumFileSize = maximumFileSize
        self.limit = ByteSizeText.exact(maximumFileSize)
        self.sizeLimit = PageText.fill(strings.sizeLimit, limit)
        self.iconPath = basePath + "/assets/icon.svg"
        self.rows = folders.map { child in
            Row(name: child.name, isFolder: true, itemPath: "\(basePath)/folders/\(child.id.rawValue)", renameField: "rename-\(child.id.rawValue)")
        } + files.map { file in
            Row(name: file.name, isFolder: false, itemPath: "\(basePath)/files/\(file.id.rawValue)", renameField: "rename-\(file.id.rawValue)",
                size: language.size(file.size), modifiedISO: file.modifiedAt.formatted(.iso8601), modified: Self.time(file.modifiedAt),
                office: officeLinks[file.id].map { OfficeLinks($0, strings) },
                browser: openInBrowser.contains(file.id)
                    ? BrowserLink(href: "\(basePath)/open/\(file.id.rawValue)?action=edit", label: strings.openInBrowser) : nil,
                fromTemplate: templates.contains(file.id)
                    ? TemplateForm(action: "\(basePath)/files/\(file.id.rawValue)/new-from-template", label: strings.newFromTemplate) : nil)
        }
        self.shared = shared.map { entry in
            SharedRow(name: entry.name, isFolder: entry.isFolder, kind: entry.isFolder ? "folder" : "file", pageURL: entry.pageURL,
                      sharedBy: PageText.fill(entry.role >= .editor ? strings.sharedByEditor : strings.sharedByViewer, entry.ownerName),
                      canEdit: entry.role >= .editor, office: entry.officeLinks.map { OfficeLinks($0, strings) })
        }
        self.hasShared = !shared.isEmpty
        self.trashPath = basePath + "/trash"
        self.trashLabel = language.trash.trash
    }

    /// A time for people, in UTC and unambiguous in every language: "2026-11-23 19:05 UTC".
    static func time(_ date: Date) -> String {
        // ISO 8601 in UTC is "2026-11-23T19:05:00Z": keep the minutes, swap the "T" for a space.
        String(date.formatted(.iso8601).prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}
