import Foundation
import OfficeSimulator

/// Collects the checks as they are reported, from whatever task reports them.
final class CheckReport: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [ReadinessCheck] = []
    private var recordedLeftovers: [String] = []

    func add(_ check: ReadinessCheck) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(check)
    }

    /// Notes what a scenario changed on the host and could not put back.
    func addLeftover(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        recordedLeftovers.append(line)
    }

    var leftovers: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recordedLeftovers
    }

    var checks: [ReadinessCheck] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
