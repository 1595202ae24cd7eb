import ArgumentParser
import OfficeSimulator

/// `--scenario`: one ``SimulationScenario`` or `all`.
enum ScenarioChoice: ExpressibleByArgument, Sendable, Hashable {
    case one(SimulationScenario)
    case all

    init?(argument: String) {
        if argument == "all" { self = .all; return }
        guard let scenario = SimulationScenario(rawValue: argument) else { return nil }
        self = .one(scenario)
    }

    static var allValueStrings: [String] { SimulationScenario.allCases.map(\.rawValue) + ["all"] }

    var defaultValueDescription: String {
        switch self {
        case .one(let scenario): scenario.rawValue
        case .all: "all"
        }
    }
}
