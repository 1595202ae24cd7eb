/// The category a test case belongs to (the `Category` attribute in TestCases.xml).
///
/// As in Microsoft's runner, `WopiCore` cases run whatever categories are selected, and `all` selects everything.
public enum TestCategory: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `All`: every category.
    case all = "All"
    /// `WopiCore`: the core WOPI protocol.
    case wopiCore = "WopiCore"
    /// `OfficeOnline`: what Office for the web needs.
    case officeOnline = "OfficeOnline"
    /// `OfficeNativeClient`: what the Office desktop and mobile apps need.
    case officeNativeClient = "OfficeNativeClient"
    /// `WopiCoauth`: coauthoring.
    case wopiCoauth = "WopiCoauth"

    /// Parses a category name case-insensitively (`wopicore`, `OfficeNativeClient`, …).
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }

    /// The category name as TestCases.xml writes it.
    public var description: String { rawValue }

    /// Whether a case of `self` runs when `selection` is chosen.
    public func isSelected(by selection: Set<TestCategory>) -> Bool {
        self == .wopiCore || selection.contains(.all) || selection.contains(self)
    }
}
