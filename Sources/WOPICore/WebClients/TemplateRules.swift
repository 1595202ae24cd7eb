/// Documents made from templates, as pure functions: which files are templates, what a new document
/// made from one is called, and when CheckFileInfo hands a browser editor the template.
///
/// Collabora Online's `wsd/reference.md` ("TemplateSource"): when CheckFileInfo carries
/// `TemplateSource`, a URL of a template the editor can fetch, the editor builds the document from
/// that template and stores it with an ordinary PutFile. The host's file is new and empty until then.
public enum TemplateRules {
    /// The document extension each template extension makes, lowercase and without a dot: the Office
    /// Open XML templates (ECMA-376), with and without macros, and the OpenDocument ones (ODF 1.2).
    public static let documentExtensions: [String: String] = [
        "dotx": "docx", "dotm": "docm",
        "xltx": "xlsx", "xltm": "xlsm",
        "potx": "pptx", "potm": "pptm",
        "ott": "odt", "ots": "ods", "otp": "odp", "otg": "odg",
    ]

    /// The extension a document made from a template named `templateName` gets; `nil` when the name's
    /// extension (any case) is no template's.
    public static func documentExtension(forTemplateNamed templateName: String) -> String? {
        guard let (_, ext) = split(templateName) else { return nil }
        return documentExtensions[ext.lowercased()]
    }

    /// The name of a new document made from the template named `templateName`: its stem with the
    /// document extension (`Letter.ott` → `Letter.odt`); `nil` when it is no template.
    public static func documentName(forTemplateNamed templateName: String) -> String? {
        guard let (stem, _) = split(templateName), let ext = documentExtension(forTemplateNamed: templateName) else { return nil }
        return "\(stem).\(ext)"
    }

    /// Whether CheckFileInfo carries `TemplateSource`: the file was made from a template, it is
    /// still empty (no save has given it content), and the caller may still read the template.
    /// After the first save, the editor opens the document itself.
    public static func includesTemplateSource(madeFromTemplate: Bool, fileSize: Int64, callerCanReadTemplate: Bool) -> Bool {
        madeFromTemplate && fileSize == 0 && callerCanReadTemplate
    }

    /// `name` split at its last dot, when there is a non-empty stem and extension.
    private static func split(_ name: String) -> (stem: Substring, ext: Substring)? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else { return nil }
        return (name[..<dot], name[name.index(after: dot)...])
    }
}
