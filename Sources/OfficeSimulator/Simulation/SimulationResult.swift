import Foundation
import OfficeURLScheme

/// What a successful simulated session leaves behind.
public struct SimulationResult: Sendable, Hashable {
    /// Every step, in order, as reported.
    public let steps: [SimulationStep]
    /// The scenario played.
    public let scenario: SimulationScenario
    /// Why the scenario does not apply to this host, when it does not (its steps are then skipped).
    public let notApplicable: String?
    /// The file's `Version` when Office opened it; `nil` when the scenario opened no file.
    public let versionBefore: String?
    /// The `Version` after saving; `nil` in view mode.
    public let versionAfter: String?
    /// The content Office saved; `nil` in view mode.
    public let savedContent: Data?
    /// The passback Office sends on the back arrow; `nil` when the invoke URI had no `|p|`.
    public let passback: OfficePassback?
    /// The browser editor played, for a ``WebClientSimulator`` session (whose ``SimulationResult/scenario`` is then
    /// ``SimulationScenario/openEditSave``, the story it plays); `nil` for Office for iOS.
    public let client: WebClientProfile?
    /// What the session changed on the host and could not put back, one sentence each (with
    /// ``SimulationOptions/putsContentBack``, content it could not write back); empty when the host is as
    /// the session found it.
    public var leftovers: [String] = []

    /// Creates a result.
    public init(scenario: SimulationScenario = .openEditSave, steps: [SimulationStep], notApplicable: String? = nil,
                versionBefore: String?, versionAfter: String?, savedContent: Data?, passback: OfficePassback?,
                client: WebClientProfile? = nil) {
        self.client = client
        self.scenario = scenario
        self.notApplicable = notApplicable
        self.steps = steps
        self.versionBefore = versionBefore
        self.versionAfter = versionAfter
        self.savedContent = savedContent
        self.passback = passback
    }
}
