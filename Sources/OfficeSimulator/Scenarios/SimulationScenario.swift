/// One documented Office for iOS behaviour the simulator can play against a host (/// docs/native/src/scenarios/operational_flows.rst and wopi_requirements.rst in the WOPI docs).
public enum SimulationScenario: String, Sendable, Hashable, CaseIterable, Codable {
    /// Sign in, open, lock, save, unlock, back: the first integration story.
    case openEditSave = "open-edit-save"
    /// "Add a Place": GET_ROOT_CONTAINER, then EnumerateChildren with Office's extension filter down
    /// the folders, CheckContainerInfo on each and CheckFileInfo on each Office file found.
    case browse
    /// CreateChildFile of a new document in the file's folder, then open, edit and save it.
    case create
    /// PutRelativeFile with a suggested name, then open the new file.
    case saveAs = "save-as"
    /// RenameFile while holding the lock; CheckFileInfo must show the new name.
    case rename
    /// Another device holds the lock: Lock and PutFile must answer 409 with that lock, and the
    /// content must stay untouched; Office shows the file as locked by another user. A lock some
    /// other client already holds plays that device and is left in place.
    case conflict
    /// The OAuth access token expires: the refresh-token grant (with `sc`), GET_NEW_ACCESS_TOKEN
    /// again, and the session carries on.
    case tokenRefresh = "token-refresh"
    /// The connection drops halfway through PutFile: the passback says `|z|yes|`, the save is
    /// retried and the final passback says `|z|no|` (seed 000, "upload pending").
    case uploadPending = "upload-pending"

    /// The order `all` plays the scenarios in: every scenario leaves the file as it found it, and
    /// `rename` goes last, so on a host that loses a renamed file (and cannot rename it back) only
    /// `rename` fails.
    public static var playOrder: [SimulationScenario] {
        allCases.filter { $0 != .rename } + [.rename]
    }

    /// Whether the scenario needs the provider's bootstrapper and OAuth server, so it cannot run
    /// with only an access token.
    public var needsSignIn: Bool {
        switch self {
        case .browse, .tokenRefresh: true
        default: false
        }
    }

    /// What the scenario shows, in one line, for `--help` and summaries.
    public var summary: String {
        switch self {
        case .openEditSave: "sign in, open, lock, save, unlock, passback"
        case .browse: "Add a Place: root container, folders, Office files, licensing and names"
        case .create: "CreateChildFile in the file's folder, then open, edit, save"
        case .saveAs: "PutRelativeFile with a suggested name, then open the new file"
        case .rename: "RenameFile holding the lock; CheckFileInfo shows the new name"
        case .conflict: "another device holds the lock (or an existing one): Lock and PutFile get 409, content untouched"
        case .tokenRefresh: "refresh-token grant with sc, GET_NEW_ACCESS_TOKEN again, carry on"
        case .uploadPending: "connection drops during PutFile: |z|yes|, retry, |z|no|"
        }
    }
}
