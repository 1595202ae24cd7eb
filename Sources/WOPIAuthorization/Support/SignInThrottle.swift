import Foundation
import WOPICore
import WOPIHost

/// Limits wrong passwords per sign-in name and client address (RFC 6819 §5.1.4.2.3, online
/// guessing): after ``AuthorizationPolicy/maximumFailedSignIns`` failures within the window,
/// further attempts are refused with 429 and `Retry-After` until the oldest failure ages out.
/// The token endpoint counts refused grants the same way, per client and address.
///
/// The failures are counted in the store (``SignInFailureStore``), so every host of a deployment
/// sees every other host's: behind N hosts a guesser gets the same attempts as behind one.
struct SignInThrottle: Sendable {
    private let limit: Int
    private let window: TimeInterval
    private let failures: any SignInFailureStore

    init(policy: AuthorizationPolicy, failures: any SignInFailureStore) {
        limit = max(1, policy.maximumFailedSignIns)
        window = policy.failureWindow
        self.failures = failures
    }

    /// The key for a user name and an address (when the request context knows one). Names are cut
    /// to 64 characters, the longest a user can have; the store keeps the key's digest, never a name tried in
    /// the clear (it may be a password typed in the wrong field).
    static func key(username: String, address: String?) -> String {
        SecretDigest(of: "signin|\(username.lowercased().prefix(64))|\(address ?? "-")").hex
    }

    /// The key for grants a client asks for from an address at the token endpoint.
    static func key(client: String, address: String?) -> String {
        SecretDigest(of: "grant|\(client.prefix(256))|\(address ?? "-")").hex
    }

    /// Seconds to wait before trying again, or `nil` when an attempt is allowed now.
    func retryAfter(_ key: String, now: Date) async throws -> TimeInterval? {
        let recent = try await failures.signInFailures(key: key, after: now.addingTimeInterval(-window))
        guard recent.count >= limit, let oldest = recent.oldest else { return nil }
        // Never more than the window: a time read back from the store may be a rounding later than `now`.
        return max(1, min(window, oldest.addingTimeInterval(window).timeIntervalSince(now)))
    }

    /// Counts a failure.
    func recordFailure(_ key: String, now: Date) async throws {
        try await failures.recordSignInFailure(key: key, at: now, forgettingThrough: now.addingTimeInterval(-window))
    }

    /// Forgets the failures after a success.
    func reset(_ key: String) async throws {
        try await failures.clearSignInFailures(key: key)
    }
}
