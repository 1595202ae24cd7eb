/// An Office application that registers an Office URI scheme.
///
/// The iOS apps are Word, Excel, PowerPoint and OneNote (*Integrate with Office from iOS
/// applications*); the desktop Office URI Schemes specification (§1.3, §2) adds Visio, Access,
/// Project, Publisher, SharePoint Designer and InfoPath.
///
/// ```swift
/// let app = OfficeApp(fileExtension: "budget.xlsx")   // .excel
/// app?.scheme                                          // "ms-excel"
/// ```
public enum OfficeApp: String, Sendable, Hashable, CaseIterable, Codable {
    /// Microsoft Word (`ms-word`).
    case word
    /// Microsoft Excel (`ms-excel`).
    case excel
    /// Microsoft PowerPoint (`ms-powerpoint`).
    case powerpoint
    /// Microsoft OneNote (`onenote`).
    case onenote
    /// Microsoft Visio (`ms-visio`, desktop only).
    case visio
    /// Microsoft Access (`ms-access`, desktop only).
    case access
    /// Microsoft Project (`ms-project`, desktop only).
    case project
    /// Microsoft Publisher (`ms-publisher`, desktop only).
    case publisher
    /// Microsoft SharePoint Designer (`ms-spd`, desktop only).
    case spd
    /// Microsoft InfoPath (`ms-infopath`, desktop only).
    case infopath

    /// The URI scheme the app registers, without the colon (Office URI Schemes §2).
    public var scheme: String {
        switch self {
        case .word: "ms-word"
        case .excel: "ms-excel"
        case .powerpoint: "ms-powerpoint"
        case .onenote: "onenote"
        case .visio: "ms-visio"
        case .access: "ms-access"
        case .project: "ms-project"
        case .publisher: "ms-publisher"
        case .spd: "ms-spd"
        case .infopath: "ms-infopath"
        }
    }

    /// The product name shown to users, for example "Microsoft Word".
    public var displayName: String {
        switch self {
        case .word: "Microsoft Word"
        case .excel: "Microsoft Excel"
        case .powerpoint: "Microsoft PowerPoint"
        case .onenote: "Microsoft OneNote"
        case .visio: "Microsoft Visio"
        case .access: "Microsoft Access"
        case .project: "Microsoft Project"
        case .publisher: "Microsoft Publisher"
        case .spd: "Microsoft SharePoint Designer"
        case .infopath: "Microsoft InfoPath"
        }
    }

    /// The file extensions (lower case, without the dot) the app opens.
    public var fileExtensions: [String] {
        switch self {
        case .word: ["docx", "doc", "docm", "dotx", "dotm", "dot", "rtf", "odt"]
        case .excel: ["xlsx", "xls", "xlsm", "xlsb", "xltx", "xltm", "xlt", "csv", "ods"]
        case .powerpoint: ["pptx", "ppt", "pptm", "ppsx", "pps", "ppsm", "potx", "potm", "pot", "odp"]
        case .onenote: ["one", "onetoc2", "onepkg"]
        case .visio: ["vsdx", "vsd", "vsdm", "vssx", "vstx"]
        case .access: ["accdb", "mdb", "accde", "accdt"]
        case .project: ["mpp", "mpt"]
        case .publisher: ["pub"]
        case .spd: []
        case .infopath: ["xsn"]
        }
    }

    /// Whether the app exists on iOS; only these can be launched from an iOS app.
    public var isAvailableOnIOS: Bool {
        switch self {
        case .word, .excel, .powerpoint, .onenote: true
        default: false
        }
    }

    /// The App Store products to offer when the app is missing (seed 000, "Prompt the user to
    /// install Office"). OneNote has separate iPhone and iPad products; desktop apps have none.
    public var appStoreProducts: [AppStoreProduct] {
        switch self {
        case .word: [AppStoreProduct(id: 586_447_913, device: .universal)]
        case .excel: [AppStoreProduct(id: 586_683_407, device: .universal)]
        case .powerpoint: [AppStoreProduct(id: 586_449_534, device: .universal)]
        case .onenote: [AppStoreProduct(id: 410_395_246, device: .iPhone), AppStoreProduct(id: 478_105_721, device: .iPad)]
        default: []
        }
    }

    /// The App Store product for a device, picking the iPad or iPhone build where they differ.
    ///
    /// - Parameter device: The device the user is on; `.universal` picks the first product.
    /// - Returns: `nil` for desktop-only apps.
    public func appStoreProduct(for device: AppStoreProduct.Device) -> AppStoreProduct? {
        let products = appStoreProducts
        return products.first { $0.device == device } ?? products.first { $0.device == .universal } ?? products.first
    }

    /// The scheme that only tells whether the installed app supports WOPI (version 16.05 or later),
    /// for example `ms-word-wopi-support-1605` (from_app.rst). Check it with `canOpenURL`; never
    /// launch it. `nil` for apps without such a scheme.
    public var wopiSupportCheckScheme: String? {
        switch self {
        case .word, .excel, .powerpoint: "\(scheme)-wopi-support-1605"
        default: nil
        }
    }

    /// The scheme a storage app answers Office's app-to-app sign-in with, for example
    /// `ms-word-tp` (apptoapp.rst, "New URL schemes registered by Office iOS"). `nil` for apps
    /// that do not take part in app-to-app sign-in.
    public var signInReturnScheme: String? {
        switch self {
        case .word: "ms-word-tp"
        case .excel: "ms-excel-tp"
        case .powerpoint: "ms-powerpoint-tp"
        default: nil
        }
    }

    /// The sign-in return scheme of the unified Office app, `ms-officemobile-tp` (apptoapp.rst).
    public static let officeMobileSignInReturnScheme = "ms-officemobile-tp"

    /// Every sign-in return scheme Office for iOS registers, including `ms-officemobile-tp`.
    public static let allSignInReturnSchemes: [String] =
        allCases.compactMap(\.signInReturnScheme) + [officeMobileSignInReturnScheme]

    /// Whether the app supports the `nft` (new from template) command; SharePoint Designer and
    /// InfoPath do not (Office URI Schemes §3.1).
    public var supportsNewFromTemplate: Bool {
        self != .spd && self != .infopath
    }

    /// The longest document URL the app accepts (Office URI Schemes §1.7): 256 characters,
    /// 216 for Excel. Longer URLs are reported as warnings, not errors.
    public var maximumDocumentURLLength: Int {
        self == .excel ? 216 : 256
    }

    /// Picks the app that opens a file, from its extension or a whole file name or URL.
    ///
    /// `OfficeApp(fileExtension: "budget.xlsx")`, `OfficeApp(fileExtension: ".xlsx")` and
    /// `OfficeApp(fileExtension: "XLSX")` all give ``excel``. Returns `nil` for unknown extensions.
    public init?(fileExtension: String) {
        var candidate = Substring(fileExtension)
        // Drop any query or fragment so a URL works too.
        if let cut = candidate.firstIndex(where: { $0 == "?" || $0 == "#" }) { candidate = candidate[..<cut] }
        if let dot = candidate.lastIndex(of: ".") { candidate = candidate[candidate.index(after: dot)...] }
        let ext = candidate.lowercased()
        guard !ext.isEmpty, let app = OfficeApp.allCases.first(where: { $0.fileExtensions.contains(ext) }) else {
            return nil
        }
        self = app
    }

    /// Picks the app that registers a URI scheme, ignoring case; `nil` for other schemes.
    ///
    /// - Parameter scheme: A scheme such as `ms-word` or `MS-WORD`, without the colon.
    public init?(scheme: String) {
        let lowered = scheme.lowercased()
        guard let app = OfficeApp.allCases.first(where: { $0.scheme == lowered }) else { return nil }
        self = app
    }

    /// Picks the app named in a sign-in request's `app` parameter (`word`, `excel`, `powerpoint`),
    /// ignoring case.
    public init?(signInName: String) {
        guard let app = OfficeApp(rawValue: signInName.lowercased()), app.signInReturnScheme != nil else { return nil }
        self = app
    }
}
