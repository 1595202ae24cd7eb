import Testing
import WOPIHost
import WOPIStoreTesting

/// Every store protocol the conformance suites check, as the SQLite and PostgreSQL stores implement them.
typealias CompleteStore = any WOPIStore & AuthorizationStore & AuditStore & SignInFailureStore & WebSessionStore

/// A defect planted in ``FaultyStore``, each the kind a store written from the protocol's documentation
/// could have, with the conformance check that must catch it.
enum StoreFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `user(named:)` compares names case-sensitively.
    case userNamesCompareCase
    /// A lock request another client's lock should refuse is reported granted (nothing is written).
    case everyLockRequestIsGranted
    /// A lock change from a copy of the file is decided on the copy, and written whatever the stored lock is.
    case staleLockCopiesAreTrusted
    /// A refresh token that was already rotated rotates again.
    case refreshTokensRotateAgain
    /// A save past `keepVersions` reports no dropped bodies.
    case savesDropNoBodies
    /// Audit retention removes old events but reports none removed.
    case auditRetentionReportsNoRemovals
    /// Recording a failure never forgets the expired ones.
    case expiredFailuresAreKept
    /// Ending a web session reports success and keeps the session.
    case endedSessionsStayValid

    var testDescription: String { rawValue }

    /// Runs the check that must report this fault, over subjects `makeSubject` returns.
    func runCatchingCheck(_ makeSubject: @escaping @Sendable () async throws -> StoreSubject<CompleteStore>) async throws {
        switch self {
        case .userNamesCompareCase:
            try await StoreConformance { try await makeSubject().map { $0 } }.run(.usersAreUniqueByCaseInsensitiveNameAndRemovedWithEverythingTheyOwn)
        case .everyLockRequestIsGranted:
            try await StoreConformance { try await makeSubject().map { $0 } }.run(.lockRequestsFollowTheRulesAndRefusalsReportTheCurrentLock)
        case .staleLockCopiesAreTrusted:
            try await StoreConformance { try await makeSubject().map { $0 } }.run(.aLockChangeFromAStaleCopyNeverOverwritesANewerLock)
        case .refreshTokensRotateAgain:
            try await StoreConformance { try await makeSubject().map { $0 } }.run(.codesRedeemOnceAndRefreshTokensRotateOnceAcrossHosts)
        case .savesDropNoBodies:
            try await StoreConformance { try await makeSubject().map { $0 } }.run(.savesKeepReplacedContentUpToKeepVersions)
        case .auditRetentionReportsNoRemovals:
            try await AuditStoreConformance { try await makeSubject().map { $0 } }.run(.eventsComeBackInTimeOrderPageByPageAndFiltered)
        case .expiredFailuresAreKept:
            try await SignInFailureStoreConformance { try await makeSubject().map { $0 } }.run(.failuresFromTwoHostsAreAllCountedAndExpiredOnesForgotten)
        case .endedSessionsStayValid:
            try await WebSessionStoreConformance { try await makeSubject().map { $0 } }.run(.sessionsAreFoundByDigestListedAndEnded)
        }
    }
}

extension StoreSubject {
    /// The same connections, their store seen through `transform`.
    func map<Other: Sendable>(_ transform: @escaping @Sendable (Store) -> Other) -> StoreSubject<Other> {
        let connectAgain = connectAgain
        return StoreSubject<Other>(store: transform(store), connectAgain: { try await connectAgain().map(transform) }, close: close)
    }
}
