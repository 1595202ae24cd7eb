import Testing
import WOPIHost
import WOPIStoreTesting

/// The conformance suites judge stores this package did not write: a stand-in store passes every check
/// without a fault, and each planted fault fails the check meant to catch it.
@Suite("Store conformance suites against a faulty store")
struct StoreConformanceFaultTests {
    @Test("a store without a fault passes every check of every suite")
    func faultlessStorePasses() async throws {
        try await StoreConformance { try await FaultyStore.subject(nil).map { $0 } }.run()
        try await AuditStoreConformance { try await FaultyStore.subject(nil).map { $0 } }.run()
        try await SignInFailureStoreConformance { try await FaultyStore.subject(nil).map { $0 } }.run()
        try await WebSessionStoreConformance { try await FaultyStore.subject(nil).map { $0 } }.run()
    }

    @Test("each planted fault fails its check", arguments: StoreFault.allCases)
    func plantedFaultIsCaught(_ fault: StoreFault) async throws {
        try await withKnownIssue("the store \(fault)") {
            try await fault.runCatchingCheck { try await FaultyStore.subject(fault) }
        } matching: { issue in
            if case .expectationFailed = issue.kind { true } else { false }
        }
    }
}
