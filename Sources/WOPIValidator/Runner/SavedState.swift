/// The values a test case saves with `<SaveState>` while it runs, plus the original access token and WOPISrc.
///
/// A key can be present with no value: the request that should have produced it answered without it.
/// Microsoft's runner then builds `$State:` URLs from the original WOPISrc, and `ExpectedStateKey` checks fall
/// back to `ExpectedValue`; ``lookup(_:)`` keeps that distinction.
public struct SavedState: Sendable, Hashable {
    /// The result of looking a key up.
    public enum Lookup: Sendable, Hashable {
        /// Never saved.
        case missing
        /// Saved, but the response had no value.
        case empty
        /// Saved with this non-empty value.
        case value(String)
    }

    /// State key holding the access token the run started with.
    public static let originalAccessTokenKey = "OriginalAccessToken"
    /// State key holding the WOPISrc the run started with.
    public static let originalWOPISrcKey = "OriginalWopiSrc"

    private var storage: [String: String] = [:]

    /// Creates the state a test case starts with.
    public init(accessToken: String, wopiSrc: String) {
        storage[Self.originalAccessTokenKey] = accessToken
        storage[Self.originalWOPISrcKey] = wopiSrc
    }

    /// Looks `key` up.
    public func lookup(_ key: String) -> Lookup {
        guard let value = storage[key] else { return .missing }
        return value.isEmpty ? .empty : .value(value)
    }

    /// The non-empty value saved under `key`.
    public subscript(key: String) -> String? {
        if case .value(let v) = lookup(key) { return v }
        return nil
    }

    /// Saves `value` under `key`; `nil` records that the key was saved without a value.
    public mutating func save(_ value: String?, for key: String) {
        storage[key] = value ?? ""
    }
}
