import Foundation
import OfficeSimulator

/// Collects the checks as they are reported, from whatever task reports them.
final class CheckReport: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [ReadinessCheck] = []

    func add(_ check: ReadinessCheck) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(check)
    }

    var checks: [ReadinessCheck] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
