import Foundation

/// Failed sign-ins (wrong passwords, refused grants) counted where every host of a deployment
/// sees them, so that N hosts allow a guesser as many attempts as one (RFC 6819 §5.1.4.2.3).
///
/// Keys are opaque digests (the sign-in throttle makes them); a store never sees a name or address.
/// Each method is one atomic step: a failure is one insert, never a read-modify-write, so
/// concurrent failures on several hosts are all counted.
public protocol SignInFailureStore: Sendable {
    /// How many failures `key` has after `since`, and when the oldest of them happened.
    func signInFailures(key: String, after since: Date) async throws -> (count: Int, oldest: Date?)

    /// Counts one failure of `key` at `time`, and forgets every failure (of any key) at or before
    /// `expired`, so the table holds no more than the failures of one window.
    func recordSignInFailure(key: String, at time: Date, forgettingThrough expired: Date) async throws

    /// Forgets the failures of `key` (after a successful sign-in).
    func clearSignInFailures(key: String) async throws
}

/// Failures counted in this process only: the fallback for a store that is not a ``SignInFailureStore``.
package actor InMemorySignInFailures: SignInFailureStore {
    /// An empty record of failures.
    package init() {}

    private var failures: [String: [Date]] = [:]

    /// The most keys remembered at once; beyond it the stalest are forgotten first.
    static let capacity = 10_000

    package func signInFailures(key: String, after since: Date) -> (count: Int, oldest: Date?) {
        let recent = (failures[key] ?? []).filter { $0 > since }
        return (recent.count, recent.first)
    }

    package func recordSignInFailure(key: String, at time: Date, forgettingThrough expired: Date) {
        failures[key] = (failures[key] ?? []).filter { $0 > expired } + [time]
        guard failures.count > Self.capacity else { return }
        failures = failures.compactMapValues { times in
            let kept = times.filter { $0 > expired }
            return kept.isEmpty ? nil : kept
        }
        if failures.count > Self.capacity {
            let stalest = failures.sorted { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
            for (key, _) in stalest.prefix(failures.count - Self.capacity) { failures[key] = nil }
        }
    }

    package func clearSignInFailures(key: String) {
        failures[key] = nil
    }
}
