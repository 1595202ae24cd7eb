/// What Office does with the document (Office URI Schemes §3).
public enum OfficeCommand: String, Sendable, Hashable, CaseIterable, Codable {
    /// `ofv`: open for viewing (§3.1).
    case view = "ofv"
    /// `ofe`: open for editing, the default on iOS (§3.2).
    case edit = "ofe"
    /// `nft`: create a new document from the template at `|u|`, optionally saving to `|s|` (§3.3).
    case newFromTemplate = "nft"

    /// The name used by the `wopi` command line and its JSON: `view`, `edit` or `new-from-template`.
    public var modeName: String {
        switch self {
        case .view: "view"
        case .edit: "edit"
        case .newFromTemplate: "new-from-template"
        }
    }

    /// Looks a command up by its wire name (`ofe`, case-insensitive) or its mode name (`edit`).
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let command = OfficeCommand(rawValue: lowered) ?? OfficeCommand.allCases.first(where: { $0.modeName == lowered }) else {
            return nil
        }
        self = command
    }
}
