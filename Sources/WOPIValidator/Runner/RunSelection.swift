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
    /// Groups whose cases run whatever their category: `ProofKeys` (category OfficeOnline) when the
    /// runner signs proofs, because every WOPI client signs them, Office for iOS included.
    public var groupsInAnyCategory: Set<String> = []

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

    /// WOPIKit's selection when the runner signs proofs: ``wopiKit`` with the `ProofKeys`
    /// group included instead of excluded.
    public static var wopiKitWithProofKeys: RunSelection {
        var selection = RunSelection(excludedGroups: ExcludedGroup.wopiKitDefaults.filter { $0 != ExcludedGroup.proofKeys })
        selection.groupsInAnyCategory = [ExcludedGroup.proofKeys.name]
        return selection
    }

    func exclusion(for group: String) -> ExcludedGroup? {
        excludedGroups.first { $0.name.lowercased() == group.lowercased() }
    }
}
