import Foundation
import Testing
import WOPIHost

/// The promises every metadata store (`WOPIStore` and `AuthorizationStore`, what
/// `HostStorage` runs on) keeps, as checks you run against your own store from Swift Testing.
///
/// ```swift
/// @Test(arguments: StoreConformance.Check.allCases)
/// func myStore(_ check: StoreConformance.Check) async throws {
///     try await StoreConformance { try await MyStore.makeEmptyDatabase().subject() }.run(check)
/// }
/// ```
///
/// Each check asks `makeSubject` for a connection to new, empty storage used by nothing else, connects to it
/// again where it needs a second host, closes every connection when it ends, and reports failures as Swift
/// Testing issues. This package runs the same checks on its SQLite and PostgreSQL stores.
public struct StoreConformance: ConformanceSuite {
    /// A store under test: a connection to empty storage, and the means to connect to it again.
    public typealias Subject = StoreSubject<any WOPIStore & AuthorizationStore>

    /// One promise.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        // Users, containers, files and locks.
        /// User names are unique ignoring case; removing a user removes everything they own and reports its bodies.
        case usersAreUniqueByCaseInsensitiveNameAndRemovedWithEverythingTheyOwn
        /// Sibling container names are unique ignoring case; containers list sorted, rename, and delete only when empty.
        case containersKeepSiblingNamesUniqueAndDeleteOnlyWhenEmpty
        /// Every change to a file gives it a new, higher version, and a version is never reused.
        case filesGetNewVersionsOnEveryChangeAndNeverReuseOne
        /// Lock requests follow `LockRules`, refusals report the current lock and change nothing, expired locks count as none.
        case lockRequestsFollowTheRulesAndRefusalsReportTheCurrentLock
        /// 64 clients racing to lock one file through two connections: exactly one wins, every refusal names its lock.
        case sixtyFourClientsOnTwoHostsRacingForOneLockGetOneWinner
        /// A lock change from a copy of the file read before another host changed its lock is applied only over the
        /// copy's lock, and otherwise decided again on the stored one; 32 clients racing from one copy get one winner.
        case aLockChangeFromAStaleCopyNeverOverwritesANewerLock
        /// A host secret is created once for every host, however many race for it; settings are shared.
        case hostSecretsAreCreatedOnceForEveryHost
        /// An authorization code redeems once and a refresh token rotates once, across hosts; grants revoke; records expire.
        case codesRedeemOnceAndRefreshTokensRotateOnceAcrossHosts
        /// Paged child listings concatenate to exactly `children(of:)`, in the same case-insensitive name order.
        case pagesConcatenateToTheChildrenInNameOrder

        // Activities.
        /// Activities are recorded once per id, refused for unknown records, and listed for the users they mention.
        case activitiesAreRecordedOnceAndListedForTheMentionedUser

        // Sharing.
        /// The access reads every WOPI request starts with run many at once and see a second host's commit at once.
        case accessReadsRunManyAtOnceAndSeeEveryCommit
        /// A role comes from ownership, the file's own share, and a share of any folder above it; the highest wins.
        case rolesComeFromTheOwnerTheFileAndEveryFolderAbove
        /// Shares are listed oldest first, refused when they make no sense, and go with their item and their user.
        case sharesAreListedAndRefusedWhenTheyMakeNoSense
        /// A share removed on one host is gone for another at once.
        case aRemovedShareIsSeenAtOnceByASecondHost

        // Trash.
        /// A trashed file is gone for every lookup, keeps id, content, versions and shares, and comes back whole.
        case aTrashedFileIsHiddenAndComesBackWhole
        /// A folder goes to the trash with everything in it as one item, and comes back with it.
        case aTrashedFolderGoesAndComesBackAsOneItem
        /// An item whose folder is in the trash or gone comes back to the owner's root.
        case anItemWithoutItsFolderComesBackToTheOwnersRoot
        /// Emptying removes items, their trees, versions and bodies; the age and owner filters keep the rest.
        case emptyingTheTrashRemovesItemsTreesVersionsAndBodies
        /// Restoring a folder onto a taken name is refused; another name restores it.
        case restoringAFolderOntoATakenNameIsRefused

        // Version history and lock administration.
        /// Each save keeps the replaced content; beyond `keepVersions` the oldest go and their bodies are reported.
        case savesKeepReplacedContentUpToKeepVersions
        /// A save's kinds stay with its content into the history; a save of no stated kind and a restore have none.
        case saveKindsStayWithTheirContent
        /// A save based on an outdated modification time is refused and changes nothing; the current time saves.
        case aSaveOnAnOutdatedModifiedTimeIsRefused
        /// A restore shares the kept body, pruning never reports a body still in use, a lock refuses the restore.
        case aRestoreSharesTheKeptBodyAndALockRefusesIt

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
            case .usersAreUniqueByCaseInsensitiveNameAndRemovedWithEverythingTheyOwn: try await usersAreUnique(subject.store)
            case .containersKeepSiblingNamesUniqueAndDeleteOnlyWhenEmpty: try await containersKeepSiblingNamesUnique(subject.store)
            case .filesGetNewVersionsOnEveryChangeAndNeverReuseOne: try await filesGetNewVersions(subject.store)
            case .lockRequestsFollowTheRulesAndRefusalsReportTheCurrentLock: try await lockRequestsFollowTheRules(subject.store)
            case .sixtyFourClientsOnTwoHostsRacingForOneLockGetOneWinner: try await clientsRacingForOneLock(subject)
            case .aLockChangeFromAStaleCopyNeverOverwritesANewerLock: try await lockChangesFromAStaleCopy(subject)
            case .hostSecretsAreCreatedOnceForEveryHost: try await hostSecretsAreCreatedOnce(subject)
            case .codesRedeemOnceAndRefreshTokensRotateOnceAcrossHosts: try await codesRedeemOnce(subject)
            case .pagesConcatenateToTheChildrenInNameOrder: try await pagesConcatenateToTheChildren(subject.store)
            case .activitiesAreRecordedOnceAndListedForTheMentionedUser: try await activitiesAreRecordedOnce(subject.store)
            case .accessReadsRunManyAtOnceAndSeeEveryCommit: try await accessReadsRunManyAtOnce(subject)
            case .rolesComeFromTheOwnerTheFileAndEveryFolderAbove: try await rolesComeFromEveryFolderAbove(subject.store)
            case .sharesAreListedAndRefusedWhenTheyMakeNoSense: try await sharesAreListedAndRefused(subject.store)
            case .aRemovedShareIsSeenAtOnceByASecondHost: try await aRemovedShareIsSeenAtOnce(subject)
            case .aTrashedFileIsHiddenAndComesBackWhole: try await trashAndRestoreAFile(subject.store)
            case .aTrashedFolderGoesAndComesBackAsOneItem: try await trashAndRestoreAFolder(subject.store)
            case .anItemWithoutItsFolderComesBackToTheOwnersRoot: try await restoreToRoot(subject.store)
            case .emptyingTheTrashRemovesItemsTreesVersionsAndBodies: try await emptyTheTrash(subject.store)
            case .restoringAFolderOntoATakenNameIsRefused: try await restoreFolderAs(subject.store)
            case .savesKeepReplacedContentUpToKeepVersions: try await pruning(subject.store)
            case .saveKindsStayWithTheirContent: try await saveKinds(subject.store)
            case .aSaveOnAnOutdatedModifiedTimeIsRefused: try await seenModifiedTime(subject.store)
            case .aRestoreSharesTheKeptBodyAndALockRefusesIt: try await restoreSharesBodies(subject.store)
            }
        }
    }

    /// A fixed clock reading, with a fraction of a second, so stores must keep dates exactly.
    static let now = Date(timeIntervalSince1970: 1_800_000_000.125)
}
