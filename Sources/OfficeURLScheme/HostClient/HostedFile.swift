import Foundation

/// A file on a WOPI host, as EnumerateChildren lists it (``HostFileList/files(from:)``).
public struct HostedFile: Sendable, Hashable, Identifiable {
    /// The file name with its extension.
    public let name: String
    /// The file's WOPI URL as listed, with the access token of the listing.
    public let url: URL
    /// The host's version string, when listed.
    public let version: String?

    /// Creates a file description.
    public init(name: String, url: URL, version: String? = nil) {
        self.name = name
        self.url = url
        self.version = version
    }

    /// The WOPISrc: ``url`` without its query, so no access token ever goes into an invoke URI
    /// (Office gets its own tokens through the bootstrapper).
    public var wopiSrc: String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? url.absoluteString
    }

    /// ``wopiSrc``, which identifies the file.
    public var id: String { wopiSrc }

    /// The Office app that opens the file, from its extension; `nil` for other files.
    public var app: OfficeApp? { OfficeApp(fileExtension: name) }

    /// The WOPI invoke URI that opens the file for editing (from_app.rst):
    /// `ms-word:ofe|u|<WOPISrc>|d|<service>|e|<user>|n|<name>|a|App|p|<passback>|c|<context>`.
    ///
    /// - Parameters:
    ///   - service: `|d|`, the provider ID the host announces (`providerId`).
    ///   - user: `|e|`, the user's ID on the host (``HostFileList/RootContainer/userID``).
    ///   - passbackScheme: `|p|`, your app's scheme, so Office returns to it.
    ///   - context: `|c|`, handed back in the passback.
    /// - Throws: ``OfficeURLError/unsupportedDocumentURL(_:)`` when no Office app opens the file
    ///   (or another ``OfficeURLError`` from ``OfficeInvokeURI/init(app:command:documentURL:saveLocation:service:user:fileName:source:passbackScheme:context:extraArguments:)``).
    public func invokeURI(service: String, user: String, passbackScheme: String, context: String? = nil) throws(OfficeURLError) -> OfficeInvokeURI {
        guard let app, app.isAvailableOnIOS else { throw .unsupportedDocumentURL(name) }
        return try OfficeInvokeURI(app: app, command: .edit, documentURL: wopiSrc, service: service, user: user,
                                   fileName: name, source: .app, passbackScheme: passbackScheme, context: context)
    }
}
