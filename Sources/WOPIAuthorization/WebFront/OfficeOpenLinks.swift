import Foundation
import OfficeURLScheme
import WOPIHost

/// The "Open in Word / Excel / PowerPoint" links of one file on the web front.
///
/// Each is a WOPI invoke URI made by ``OfficeInvokeURI`` with `|a|Web`, because a website launches
/// Office here (from_app.rst: `ms-word:ofe|u|<WOPISrc>|d|<service>|e|<user id>|n|<name>|a|Web`).
/// The `href` is ``OfficeInvokeURI/percentEncodedString``: the form Safari itself would make of the
/// raw `|` delimiters and the one Office for iOS decodes, so what the page says is exactly what the
/// app receives. Beside it goes the App Store link, because a page cannot ask whether the app is installed.
struct OfficeOpenLinks: Sendable, Hashable {
    /// The app that opens the file.
    var app: OfficeApp
    /// `ofe`: edit.
    var edit: OfficeInvokeURI
    /// `ofv`: view only.
    var view: OfficeInvokeURI
    /// Where to get the app.
    var appStoreURL: URL

    /// The apps the web front offers (the WOPI-capable iOS apps).
    static let offeredApps: Set<OfficeApp> = [.word, .excel, .powerpoint]

    /// The links for `file`, or `nil` when no offered app opens it or its name cannot travel in a URI.
    init?(file: FileRecord, wopiSrc: String, service: String, userID: String) {
        guard let app = OfficeApp(fileExtension: file.name), Self.offeredApps.contains(app),
              let product = app.appStoreProduct(for: .iPhone) else { return nil }
        func invoke(_ command: OfficeCommand) -> OfficeInvokeURI? {
            try? OfficeInvokeURI(app: app, command: command, documentURL: wopiSrc, service: service, user: userID,
                                 fileName: file.name, source: .web)
        }
        guard let edit = invoke(.edit), let view = invoke(.view) else { return nil }
        self.app = app
        self.edit = edit
        self.view = view
        self.appStoreURL = product.storeURL
    }

    /// The app's short name for link text ("Word").
    var shortName: String {
        app.displayName.replacingOccurrences(of: "Microsoft ", with: "")
    }
}
