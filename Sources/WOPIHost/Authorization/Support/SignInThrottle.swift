import Foundation

/// Limits wrong passwords per sign-in name and client address (RFC 6819 §5.1.4.2.3, online
/// guessing): after ``AuthorizationPolicy/maximumFailedSignIns`` failures within the window,
/// further attempts are refused with 429 and `Retry-After` until the oldest failure ages out.
///
/// Kept in memory: a restart forgets it, and each host process counts on its own.
actor SignInThrottle {
    private let limit: Int
    private let window: TimeInterval
    private var failures: [String: [Date]] = [:]

    init(policy: AuthorizationPolicy) {
        limit = max(1, policy.maximumFailedSignIns)
        window = policy.failureWindow
    }

    /// The most names and addresses remembered at once; beyond it the stalest are forgotten first.
    static let capacity = 10_000

    /// The key for a user name and an address (when the request context knows one). Names are cut
    /// to 64 characters, the longest a user can have, so a key's size is bounded.
    static func key(username: String, address: String?) -> String {
        "\(username.lowercased().prefix(64))|\(address ?? "-")"
    }

    /// Seconds to wait before trying again, or `nil` when an attempt is allowed now.
    func retryAfter(_ key: String, now: Date) -> TimeInterval? {
        let recent = prune(key, now: now)
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, oldest.addingTimeInterval(window).timeIntervalSince(now))
    }

    /// Counts a wrong password.
    func recordFailure(_ key: String, now: Date) {
        var recent = prune(key, now: now)
        recent.append(now)
        failures[key] = recent
        if failures.count > Self.capacity {
            failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
            if failures.count > Self.capacity {
                let stalest = failures.sorted { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
                for (key, _) in stalest.prefix(failures.count - Self.capacity) { failures[key] = nil }
            }
        }
    }

    /// Forgets the failures after a successful sign-in.
    func reset(_ key: String) {
        failures[key] = nil
    }

    private func prune(_ key: String, now: Date) -> [Date] {
        let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
        failures[key] = recent.isEmpty ? nil : recent
        return recent
    }
}
