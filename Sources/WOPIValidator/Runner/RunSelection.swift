/// Which test cases a run executes.
public struct RunSelection: Sendable, Hashable {
    /// Categories to run; `WopiCore` cases always run (as in the original), `.all` runs every category.
    public var categories: Set<TestCategory>
    /// Groups that do not run at all, with the reason shown in the report.
    public var excludedGroups: [ExcludedGroup]
    /// Only these groups run, when non-empty.
    public var onlyGroups: Set<String>
    /// Only these test cases run, when non-empty.
    public var onlyCases: Set<String>
    /// Whether groups marked `HasDelay` run (they sleep; the original skips them unless asked).
    public var includesDelayedGroups: Bool

    /// Creates a selection.
    public init(categories: Set<TestCategory> = [.wopiCore, .officeNativeClient], excludedGroups: [ExcludedGroup] = ExcludedGroup.wopiKitDefaults,
                onlyGroups: Set<String> = [], onlyCases: Set<String> = [], includesDelayedGroups: Bool = false) {
        self.categories = categories
        self.excludedGroups = excludedGroups
        self.onlyGroups = onlyGroups
        self.onlyCases = onlyCases
        self.includesDelayedGroups = includesDelayedGroups
    }

    /// WOPIKit's CI selection: `WopiCore` + `OfficeNativeClient`, minus the coauth, chunked-transfer and proof-key groups.
    public static let wopiKit = RunSelection()

    func exclusion(for group: String) -> ExcludedGroup? {
        excludedGroups.first { $0.name.lowercased() == group.lowercased() }
    }
}
