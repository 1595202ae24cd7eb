import Foundation
import WOPICore

/// Everything the host knows about users, containers, files, locks and its own secrets — all but
/// document bodies, which live in a ``BlobStore``.
///
/// Conform to plug in your own metadata storage. Each method is one atomic step: in particular
/// ``updateLock(_:request:now:)`` and ``replaceContent(_:with:lock:now:)`` must read the lock and
/// write the result in one transaction, because that is what makes a lock race have exactly one
/// winner. ``SQLiteStore`` is the embedded default.
public protocol WOPIStore: Sendable {
    // MARK: Users

    /// Creates a user with an empty root container. Throws ``WOPIStoreError/nameTaken(_:)`` for a duplicate name.
    func createUser(name: String, displayName: String, passwordHash: PasswordHash) async throws -> UserRecord
    /// The user with this id.
    func user(id: ResourceID) async throws -> UserRecord?
    /// The user with this sign-in name (case-insensitive).
    func user(named name: String) async throws -> UserRecord?
    /// All users, by name.
    func users() async throws -> [UserRecord]
    /// Removes a user with all their containers and files; returns the blobs to delete.
    func removeUser(id: ResourceID) async throws -> [BlobKey]
    /// Stores PutUserInfo's value for a user.
    func setUserInfo(_ info: String, for userID: ResourceID) async throws

    // MARK: Containers

    /// The container with this id.
    func container(id: ResourceID) async throws -> ContainerRecord?
    /// The path from the owner's root down to and including this container.
    func containerPath(to id: ResourceID) async throws -> [ContainerRecord]
    /// The direct children of a container, each list sorted by name.
    func children(of id: ResourceID) async throws -> (containers: [ContainerRecord], files: [FileRecord])
    /// Creates a child container. Throws ``WOPIStoreError/nameTaken(_:)`` when a sibling has the name.
    func createContainer(named name: String, in parentID: ResourceID) async throws -> ContainerRecord
    /// Renames a container. Throws ``WOPIStoreError/nameTaken(_:)`` when a sibling has the name.
    func renameContainer(_ id: ResourceID, to name: String) async throws -> ContainerRecord
    /// Deletes an empty, non-root container. Throws ``WOPIStoreError/notEmpty`` otherwise.
    func deleteContainer(_ id: ResourceID) async throws

    // MARK: Files

    /// The file with this id.
    func file(id: ResourceID) async throws -> FileRecord?
    /// The file with this name in a container (case-insensitive).
    func file(named name: String, in containerID: ResourceID) async throws -> FileRecord?
    /// Records a new file whose body is already stored.
    ///
    /// With `replacing: false` a name clash throws ``WOPIStoreError/nameTaken(_:)``. With `replacing: true`
    /// the existing file keeps its id and gets the new body and a new version, unless it is locked
    /// (``WOPIStoreError/lockConflict(currentLock:reason:)``); the replaced body's key is returned.
    func createFile(named name: String, in containerID: ResourceID, blob: StoredBlob, replacing: Bool, now: Date) async throws
        -> (file: FileRecord, replacedBlob: BlobKey?)
    /// Renames a file (the lock rules of `LockRules.Request.modify(_:)` apply); bumps its version.
    func renameFile(_ id: ResourceID, to name: String, lock: WOPILock?, now: Date) async throws -> FileRecord
    /// Deletes a file unless someone else holds its lock; returns its blob to delete.
    func deleteFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> BlobKey
    /// Applies a lock request atomically and returns the decision with the file as it is afterwards.
    func updateLock(_ id: ResourceID, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord)
    /// Records new content for a file atomically, checking the lock (PutFile rules) in the same step.
    ///
    /// On success returns the updated file and the key of the body it replaced; on a lock conflict
    /// throws ``WOPIStoreError/lockConflict(currentLock:reason:)`` and changes nothing.
    func replaceContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, now: Date) async throws
        -> (file: FileRecord, replacedBlob: BlobKey)
    /// Every blob key a file refers to, for garbage collection of orphans.
    func referencedBlobs() async throws -> Set<BlobKey>

    // MARK: Secrets

    /// A host-wide secret, created with `make` the first time it is asked for and shared by every
    /// process and machine using this store.
    func hostSecret(named name: String, orCreate make: @Sendable () -> Data) async throws -> Data
    /// A host setting others may read, such as the public URL `wopi serve` last ran under.
    func hostSetting(named name: String) async throws -> String?
    /// Stores a host setting.
    func setHostSetting(_ value: String, named name: String) async throws
}

/// Errors a ``WOPIStore`` reports.
public enum WOPIStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The resource does not exist.
    case notFound
    /// The name is already used by a sibling.
    case nameTaken(String)
    /// A lock refuses the change; `currentLock` is `""` when the file is unlocked.
    case lockConflict(currentLock: String, reason: String)
    /// The container still has children, or is a root.
    case notEmpty

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .notFound: "not found"
        case .nameTaken(let name): "the name '\(name)' is already taken"
        case .lockConflict(_, let reason): "lock conflict: \(reason)"
        case .notEmpty: "the container is not empty"
        }
    }
}
