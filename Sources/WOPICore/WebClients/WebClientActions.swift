import Foundation

/// What one browser editor (a WOPI client such as Office for the web or Collabora Online) offers,
/// read from its discovery document: for each file type, the view, edit and editnew actions.
///
/// Two documented forms are understood:
/// - Microsoft's (WOPI docs, online/discovery.rst, "WOPI actions"): `app` elements named after the
///   application (`Word`), each `action` keyed by its `ext` attribute.
/// - Collabora Online's (`wsd/reference.md` and its SDK's "Integration" pages): besides `ext`
///   actions, `app` elements named after a MIME type (`application/vnd.oasis.opendocument.text`)
///   whose actions carry an empty `ext`.
///
/// Where a document lists an action in several net zones, `external-https` wins, then
/// `external-http`, then the first other zone.
public struct WebClientActions: Sendable, Hashable {
    /// The actions a host page can open a file with.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A read-only view.
        case view
        /// Editing.
        case edit
        /// Editing a new, empty file (the client fills it from its own blank template).
        case editnew
    }

    private var byExtension: [String: [Kind: DiscoveryDocument.Action]] = [:]
    private var byMIMEType: [String: [Kind: DiscoveryDocument.Action]] = [:]

    /// The actions of `document`.
    public init(_ document: DiscoveryDocument) {
        func rank(_ zone: String?) -> Int {
            switch zone { case "external-https": 0; case "external-http": 1; default: 2 }
        }
        for action in document.actions {
            guard let kind = Kind(rawValue: action.name) else { continue }
            let isMIME = action.appName.contains("/")
            let key: String
            if let ext = action.fileExtension, !ext.isEmpty {
                key = Self.normalized(ext)
                if let existing = byExtension[key]?[kind], rank(existing.netZone) <= rank(action.netZone) { continue }
                byExtension[key, default: [:]][kind] = action
            } else if isMIME {
                key = action.appName.lowercased()
                if let existing = byMIMEType[key]?[kind], rank(existing.netZone) <= rank(action.netZone) { continue }
                byMIMEType[key, default: [:]][kind] = action
            }
        }
    }

    /// The action of `kind` for a file named `fileName`: by its extension, else by the extension's
    /// MIME type (``MIMETypes``); `nil` when the client offers none.
    public func action(_ kind: Kind, forFileNamed fileName: String) -> DiscoveryDocument.Action? {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return nil }
        let ext = Self.normalized(String(fileName[fileName.index(after: dot)...]))
        if let action = byExtension[ext]?[kind] { return action }
        guard let type = MIMETypes.type(forExtension: ext) else { return nil }
        return byMIMEType[type]?[kind]
    }

    /// Whether the client opens a file named `fileName` in any way.
    public func handles(fileNamed fileName: String) -> Bool {
        Kind.allCases.contains { action($0, forFileNamed: fileName) != nil }
    }

    /// The number of file extensions the client lists actions for (for a start-up banner).
    public var extensionCount: Int { byExtension.count }
    /// The number of MIME types the client lists actions for.
    public var mimeTypeCount: Int { byMIMEType.count }

    private static func normalized(_ ext: String) -> String {
        (ext.hasPrefix(".") ? String(ext.dropFirst()) : ext).lowercased()
    }
}

/// The MIME types of the document formats browser editors open, by extension (IANA media types;
/// the OpenDocument ones from OASIS ODF 1.2 part 3, appendix C; the Office Open XML ones from ECMA-376).
public enum MIMETypes {
    /// The MIME type for `ext` (without a dot, any case); `nil` for an unknown extension.
    public static func type(forExtension ext: String) -> String? {
        table[ext.lowercased()]
    }

    private static let table: [String: String] = [
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "doc": "application/msword",
        "xls": "application/vnd.ms-excel",
        "ppt": "application/vnd.ms-powerpoint",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        "odg": "application/vnd.oasis.opendocument.graphics",
        "rtf": "text/rtf",
        "csv": "text/csv",
        "txt": "text/plain",
        "pdf": "application/pdf",
    ]
}
