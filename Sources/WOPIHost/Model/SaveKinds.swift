import Foundation

/// What kind of save a PutFile was, as Collabora Online tells the host (`wsd/reference.md`,
/// "PutFile" headers `X-COOL-WOPI-IsModifiedByUser`, `X-COOL-WOPI-IsAutosave` and
/// `X-COOL-WOPI-IsExitSave`, or their older `X-LOOL-` spellings). Kept with each version, so the
/// history can tell a user's save from an autosave or the save on closing.
public struct SaveKinds: OptionSet, Sendable, Hashable {
    /// The stored bits.
    public let rawValue: Int

    /// Kinds from stored bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The document holds changes the user made (`IsModifiedByUser: true`).
    public static let modifiedByUser = SaveKinds(rawValue: 1)
    /// Saved by the editor's timer, not by the user (`IsAutosave: true`).
    public static let autosave = SaveKinds(rawValue: 2)
    /// Saved because the last user closed the document (`IsExitSave: true`).
    public static let exitSave = SaveKinds(rawValue: 4)

    /// The kinds three header values describe; `nil` when none of the headers was sent (not a Collabora save).
    public static func from(isModifiedByUser: String?, isAutosave: String?, isExitSave: String?) -> SaveKinds? {
        guard isModifiedByUser != nil || isAutosave != nil || isExitSave != nil else { return nil }
        func isTrue(_ value: String?) -> Bool { value?.trimmingCharacters(in: .whitespaces).lowercased() == "true" }
        var kinds: SaveKinds = []
        if isTrue(isModifiedByUser) { kinds.insert(.modifiedByUser) }
        if isTrue(isAutosave) { kinds.insert(.autosave) }
        if isTrue(isExitSave) { kinds.insert(.exitSave) }
        return kinds
    }

    /// The kinds' names for people and JSON: `modified-by-user`, `autosave`, `exit-save`.
    public var names: [String] {
        var names: [String] = []
        if contains(.modifiedByUser) { names.append("modified-by-user") }
        if contains(.autosave) { names.append("autosave") }
        if contains(.exitSave) { names.append("exit-save") }
        return names
    }
}
