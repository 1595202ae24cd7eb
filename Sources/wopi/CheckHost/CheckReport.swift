import Foundation
import OfficeSimulator
import Synchronization

/// Collects the checks as they are reported, from whatever task reports them.
final class CheckReport: Sendable {
    private struct Recorded {
        var checks: [ReadinessCheck] = []
        var leftovers: [String] = []
    }

    private let recorded = Mutex(Recorded())

    func add(_ check: ReadinessCheck) {
        recorded.withLock { $0.checks.append(check) }
    }

    /// Notes what a scenario changed on the host and could not put back.
    func addLeftover(_ line: String) {
        recorded.withLock { $0.leftovers.append(line) }
    }

    var leftovers: [String] {
        recorded.withLock { $0.leftovers }
    }

    var checks: [ReadinessCheck] {
        recorded.withLock { $0.checks }
    }
}
