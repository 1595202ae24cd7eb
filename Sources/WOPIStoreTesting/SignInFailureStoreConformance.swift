import Foundation
import Testing
import WOPIHost

/// The promises every `SignInFailureStore` keeps (the failed sign-in counts every host of a
/// deployment adds to and throttles by), as checks you run against your own store from Swift Testing.
///
/// ```swift
/// @Test(arguments: SignInFailureStoreConformance.Check.allCases)
/// func myFailureCounts(_ check: SignInFailureStoreConformance.Check) async throws {
///     try await SignInFailureStoreConformance { try await MyStore.makeEmptyDatabase().failureSubject() }.run(check)
/// }
/// ```
///
/// Each check asks `makeSubject` for a connection to new, empty storage used by nothing else, connects to it
/// again where it needs a second host, closes every connection when it ends, and reports failures as Swift
/// Testing issues.
public struct SignInFailureStoreConformance: ConformanceSuite {
    /// A store under test: a connection to empty storage, and the means to connect to it again.
    public typealias Subject = StoreSubject<any SignInFailureStore>

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Failures recorded at once on two hosts are all counted; only those in the window count; a later
        /// failure forgets every expired one, of any key; clearing a key leaves the others.
        case failuresFromTwoHostsAreAllCountedAndExpiredOnesForgotten

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    private let makeSubject: @Sendable () async throws -> Subject

    /// Checks over the stores `makeSubject` returns: each call, new and empty storage.
    public init(makeSubject: @escaping @Sendable () async throws -> Subject) {
        self.makeSubject = makeSubject
    }

    /// Runs one check.
    public func run(_ check: Check) async throws {
        try await makeSubject().closing { subject in
            switch check {
            case .failuresFromTwoHostsAreAllCountedAndExpiredOnesForgotten: try await failuresAreAllCounted(subject)
            }
        }
    }

    private func failuresAreAllCounted(_ subject: Subject) async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000.125)
        let store = subject.store
        let window: TimeInterval = 900
        try await subject.withSecondHost { other in
            // 40 failures of one key at once, half on each host: none is lost.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let target = index % 2 == 0 ? store : other
                    let time = start.addingTimeInterval(Double(index))
                    group.addTask { try await target.recordSignInFailure(key: "k1", at: time, forgettingThrough: time.addingTimeInterval(-window)) }
                }
                try await group.waitForAll()
            }
            let seen = try await other.signInFailures(key: "k1", after: start.addingTimeInterval(-window))
            #expect(seen.count == 40)
            #expect(seen.oldest == start)
        }
        // The window: only failures after `since` count, and the oldest of those is reported.
        let later = try await store.signInFailures(key: "k1", after: start.addingTimeInterval(29.5))
        #expect(later.count == 10 && later.oldest == start.addingTimeInterval(30))
        #expect(try await store.signInFailures(key: "other", after: .distantPast) == (0, nil))

        // A failure much later forgets every expired failure, of any key.
        try await store.recordSignInFailure(key: "k2", at: start.addingTimeInterval(10), forgettingThrough: start.addingTimeInterval(10 - window))
        let late = start.addingTimeInterval(2 * window)
        try await store.recordSignInFailure(key: "k3", at: late, forgettingThrough: late.addingTimeInterval(-window))
        #expect(try await store.signInFailures(key: "k1", after: .distantPast).count == 0)
        #expect(try await store.signInFailures(key: "k2", after: .distantPast).count == 0)
        #expect(try await store.signInFailures(key: "k3", after: .distantPast) == (1, late))

        // Clearing one key leaves the others.
        try await store.recordSignInFailure(key: "k4", at: late, forgettingThrough: late.addingTimeInterval(-window))
        try await store.clearSignInFailures(key: "k3")
        #expect(try await store.signInFailures(key: "k3", after: .distantPast).count == 0)
        #expect(try await store.signInFailures(key: "k4", after: .distantPast).count == 1)
    }
}
