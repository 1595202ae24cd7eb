import Testing
import WOPIHost
import WOPIStoreTesting

/// The conformance suites that ship in WOPIStoreTesting, run against SQLite and a real PostgreSQL server,
/// so the two stores cannot drift apart: every check, once per driver.
@Suite("Store conformance")
struct StoreConformanceTests {
    @Test("keeps every store promise", arguments: StoreKind.allCases, StoreConformance.Check.allCases)
    func store(_ kind: StoreKind, _ check: StoreConformance.Check) async throws {
        try await StoreConformance { try await StoreUnderTest.subject(kind, as: (any WOPIStore & AuthorizationStore).self) }.run(check)
    }

    @Test("keeps every audit trail promise", arguments: StoreKind.allCases, AuditStoreConformance.Check.allCases)
    func auditTrail(_ kind: StoreKind, _ check: AuditStoreConformance.Check) async throws {
        try await AuditStoreConformance { try await StoreUnderTest.subject(kind, as: (any AuditStore).self) }.run(check)
    }

    @Test("keeps every sign-in failure promise", arguments: StoreKind.allCases, SignInFailureStoreConformance.Check.allCases)
    func signInFailures(_ kind: StoreKind, _ check: SignInFailureStoreConformance.Check) async throws {
        try await SignInFailureStoreConformance { try await StoreUnderTest.subject(kind, as: (any SignInFailureStore).self) }.run(check)
    }

    @Test("keeps every web session promise", arguments: StoreKind.allCases, WebSessionStoreConformance.Check.allCases)
    func webSessions(_ kind: StoreKind, _ check: WebSessionStoreConformance.Check) async throws {
        try await WebSessionStoreConformance { try await StoreUnderTest.subject(kind, as: (any WOPIStore & WebSessionStore).self) }.run(check)
    }

    @Test("keeps every template origin promise", arguments: StoreKind.allCases, TemplateOriginStoreConformance.Check.allCases)
    func templateOrigins(_ kind: StoreKind, _ check: TemplateOriginStoreConformance.Check) async throws {
        try await TemplateOriginStoreConformance { try await StoreUnderTest.subject(kind, as: (any WOPIStore & TemplateOriginStore).self) }.run(check)
    }

    @Test("keeps every identity link promise", arguments: StoreKind.allCases, IdentityLinkStoreConformance.Check.allCases)
    func identityLinks(_ kind: StoreKind, _ check: IdentityLinkStoreConformance.Check) async throws {
        try await IdentityLinkStoreConformance { try await StoreUnderTest.subject(kind, as: (any WOPIStore & IdentityLinkStore).self) }.run(check)
    }
}
