/// The step at which the simulated Office session stopped, why, and what the host answered.
public struct SimulationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step that failed.
    public let step: SimulationStep.Name
    /// Why Office would not go on, in one line.
    public let reason: String
    /// The host's answer to the failing request, when there was one.
    public let answer: HostAnswer?
    /// What the session changed on the host and could not put back after the failure, one sentence
    /// each (a name, a lock); empty when the host is as the session found it.
    public var leftovers: [String] = []

    /// Creates a failure.
    public init(step: SimulationStep.Name, reason: String, answer: HostAnswer? = nil) {
        self.step = step
        self.reason = reason
        self.answer = answer
    }

    /// Creates a failure carrying the relevant parts of `response`.
    public init(step: SimulationStep.Name, reason: String, response: SimulatorResponse) {
        self.init(step: step, reason: reason, answer: HostAnswer(response))
    }

    /// `<step title> failed: <reason> (host answered HTTP …)`.
    public var description: String {
        var text = "\(step.title) failed: \(reason)"
        if let answer { text += " (host answered \(answer))" }
        return text
    }
}
