import Foundation

/// One request element of a test case, as written in TestCases.xml.
public struct RequestDefinition: Sendable, Hashable {
    /// How `PutRelativeFile`, `CreateChildFile` and `CreateChildContainer` name their target.
    public enum TargetMode: String, Sendable, Hashable {
        /// `X-WOPI-SuggestedTarget` only.
        case suggested = "Suggested"
        /// `X-WOPI-RelativeTarget` only (plus `X-WOPI-OverwriteRelativeTarget` when given).
        case exactName = "ExactName"
        /// Both headers, which a host must reject.
        case conflicting = "Conflicting"
    }

    /// The element name.
    public let kind: RequestKind
    /// All attributes of the element.
    public let attributes: [String: String]
    /// The `<Validators>`, or `nil` when absent (then the request must answer 200).
    public let validators: [ValidatorDefinition]?
    /// The `<SaveState>` entries.
    public let stateSavers: [StateSaver]
    /// The `<Mutators>`.
    public let mutators: [RequestMutator]
    /// The `<RequestBody>` text, when non-empty.
    public let body: String?
    /// Incremental-transfer child elements (`ContentStreams`, `ContentFilters`, …), kept verbatim.
    public let transferElements: [XMLNode]
    /// Line in TestCases.xml.
    public let line: Int

    /// Creates a request definition.
    public init(kind: RequestKind, attributes: [String: String] = [:], validators: [ValidatorDefinition]? = nil,
                stateSavers: [StateSaver] = [], mutators: [RequestMutator] = [], body: String? = nil,
                transferElements: [XMLNode] = [], line: Int = 0) {
        self.kind = kind
        self.attributes = attributes
        self.validators = validators
        self.stateSavers = stateSavers
        self.mutators = mutators
        self.body = body
        self.transferElements = transferElements
        self.line = line
    }

    /// `Lock=`.
    public var lock: String? { attributes["Lock"] }
    /// `NewLock=`.
    public var newLock: String? { attributes["NewLock"] }
    /// `OldLock=`.
    public var oldLock: String? { attributes["OldLock"] }
    /// `Name=`: the requested file or container name.
    public var requestedName: String? { attributes["Name"] }
    /// `FolderName=`.
    public var folderName: String? { attributes["FolderName"] }
    /// `ResourceId=`: which ``TestResource`` is uploaded.
    public var resourceId: String? { attributes["ResourceId"] }
    /// `OverrideUrl=`: a literal URL or `$State:key`.
    public var overrideURL: String? { attributes["OverrideUrl"] }
    /// `UrlType=` for GetShareUrl.
    public var urlType: String? { attributes["UrlType"] }
    /// `FileExtensionFilterList=` for EnumerateChildren.
    public var fileExtensionFilterList: String? { attributes["FileExtensionFilterList"] }
    /// `CoauthLockId=`, sent by RenameFile.
    public var coauthLockId: String? { attributes["CoauthLockId"] }
    /// `LockUserVisible=` for Lock.
    public var lockUserVisible: Bool? { attributes["LockUserVisible"].flatMap(XMLBoolean.parse) }
    /// `OverwriteRelative=`.
    public var overwriteRelative: Bool? { attributes["OverwriteRelative"].flatMap(XMLBoolean.parse) }
    /// `PutRelativeFileMode=`.
    public var targetMode: TargetMode? {
        attributes["PutRelativeFileMode"].flatMap { mode in
            [TargetMode.suggested, .exactName, .conflicting].first { $0.rawValue.lowercased() == mode.lowercased() }
        }
    }
    /// `DelayTimeInSeconds=` for Delay.
    public var delaySeconds: UInt32? { attributes["DelayTimeInSeconds"].flatMap { UInt32($0) } }
}

/// `xs:boolean` values as .NET's XML attribute casts read them.
enum XMLBoolean {
    static func parse(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces) {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }
}
