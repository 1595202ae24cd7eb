import Foundation
import Testing
import WOPICore
@testable import WOPIAuthorization
@testable import WOPIHost

/// The throttle's policy — attempts, window, back-off — on each counter it can use: the store's
/// (SQLite, PostgreSQL) and the in-process fallback for a store that does not count.
@Suite struct SignInThrottleTests {
    enum Counter: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgresql, inMemory
        var testDescription: String { rawValue }
    }

    @Test(arguments: Counter.allCases)
    func limitWindowBackOffAndReset(_ counter: Counter) async throws {
        let policy = AuthorizationPolicy(maximumFailedSignIns: 3, failureWindow: 600)
        func check(_ failures: any SignInFailureStore) async throws {
            let throttle = SignInThrottle(policy: policy, failures: failures)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let key = SignInThrottle.key(username: "Alice", address: "192.0.2.1")
            #expect(key == SignInThrottle.key(username: "alice", address: "192.0.2.1"), "names count case-insensitively")
            #expect(key != SignInThrottle.key(username: "alice", address: "192.0.2.2"))
            #expect(key != SignInThrottle.key(client: "alice", address: "192.0.2.1"), "grants count apart from sign-ins")
            #expect(!key.contains("alice"), "the stored key is a digest")
            for second in [0.0, 10, 20] {
                #expect(try await throttle.retryAfter(key, now: start.addingTimeInterval(second)) == nil)
                try await throttle.recordFailure(key, now: start.addingTimeInterval(second))
            }
            // Three failures within the window: wait until the oldest ages out.
            #expect(try await throttle.retryAfter(key, now: start.addingTimeInterval(30)) == 570)
            #expect(try await throttle.retryAfter(key, now: start.addingTimeInterval(599.5)) == 1, "never less than a second")
            #expect(try await throttle.retryAfter(key, now: start.addingTimeInterval(600)) == nil, "the oldest aged out")
            try await throttle.recordFailure(key, now: start.addingTimeInterval(600))
            #expect(try await throttle.retryAfter(key, now: start.addingTimeInterval(601)) == 9, "now the failure at 10 s is the oldest")
            // A success forgets them.
            try await throttle.reset(key)
            #expect(try await throttle.retryAfter(key, now: start.addingTimeInterval(601)) == nil)
        }
        switch counter {
        case .inMemory:
            try await check(InMemorySignInFailures())
        case .sqlite, .postgresql:
            try await StoreUnderTest.with(counter == .sqlite ? .sqlite : .postgresql) { _, storage in
                try await check(try #require(storage.store as? any SignInFailureStore))
            }
        }
    }
}
