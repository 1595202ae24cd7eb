import Foundation
import WOPIHTTPClient

/// What a simulated session does the same way whichever client it plays (Office for iOS, a browser
/// editor): it records each step and hands it to the caller as soon as it ends, and it sends each
/// request on behalf of a step.
protocol SimulationStepping {
    var transport: any HTTPTransport { get }
    var onStep: @Sendable (SimulationStep) -> Void { get }
    var steps: [SimulationStep] { get set }
}

extension SimulationStepping {
    mutating func report(_ name: SimulationStep.Name, _ detail: String) {
        report(name, .passed, detail)
    }

    mutating func report(_ name: SimulationStep.Name, _ outcome: SimulationStep.Outcome, _ detail: String) {
        let step = SimulationStep(name: name, outcome: outcome, detail: detail)
        steps.append(step)
        onStep(step)
    }

    /// Sends `request` for `step`; no answer at all is a failure of that step.
    func send(_ request: SimulatorRequest, _ step: SimulationStep.Name) async throws(SimulationFailure) -> SimulatorResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw SimulationFailure(step: step, reason: "no answer from \(OfficeSimulator.redacted(request.url)): \(error)")
        }
    }
}
