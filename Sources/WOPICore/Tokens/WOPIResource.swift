import Foundation

/// What a WOPI access token grants access to: exactly one file, one container, or the user's ecosystem.
///
/// WOPI access tokens are per user and per resource (docs/rest/src/concepts.rst, "Access tokens").
public enum WOPIResource: Sendable, Hashable, CustomStringConvertible {
    /// One file, `/wopi/files/<id>`.
    case file(ResourceID)
    /// One container, `/wopi/containers/<id>`.
    case container(ResourceID)
    /// The ecosystem endpoint, `/wopi/ecosystem`, for the token's user.
    case ecosystem
    /// A share link to one file or container (GetShareUrl): `ReadOnly`, or `ReadWrite` when `readWrite`
    /// is true. Such a token opens the share page and nothing else: it is never accepted by a WOPI endpoint.
    case shareLink(ResourceID, isContainer: Bool, readWrite: Bool = false)

    /// A compact, unambiguous form used inside tokens: `f:<id>`, `c:<id>`, `e`, `sf:<id>`/`sc:<id>` (read-only
    /// links) or `wf:<id>`/`wc:<id>` (read-write links).
    public var compactForm: String {
        switch self {
        case .file(let id): "f:\(id.rawValue)"
        case .container(let id): "c:\(id.rawValue)"
        case .ecosystem: "e"
        case .shareLink(let id, let isContainer, let readWrite): "\(readWrite ? "w" : "s")\(isContainer ? "c" : "f"):\(id.rawValue)"
        }
    }

    /// Parses ``compactForm``.
    public init?(compactForm: Substring) {
        if compactForm == "e" { self = .ecosystem; return }
        guard let colon = compactForm.utf8.firstIndex(of: UInt8(ascii: ":")),
              let id = ResourceID(String(compactForm[compactForm.utf8.index(after: colon)...])) else { return nil }
        switch compactForm[..<colon] {
        case "f": self = .file(id)
        case "c": self = .container(id)
        case "sf": self = .shareLink(id, isContainer: false)
        case "sc": self = .shareLink(id, isContainer: true)
        case "wf": self = .shareLink(id, isContainer: false, readWrite: true)
        case "wc": self = .shareLink(id, isContainer: true, readWrite: true)
        default: return nil
        }
    }

    /// The compact form, for logs.
    public var description: String { compactForm }
}
