import Foundation
import WOPICore

/// Everything the host knows about users, containers, files, locks and its own secrets — all but
/// document bodies, which live in a ``BlobStore``.
///
/// Conform to plug in your own metadata storage. Each method is one atomic step: in particular
/// ``updateLock(_:request:now:)-(ResourceID,_,_)`` and
/// ``saveContent(_:with:lock:savedBy:saveKinds:seenModifiedTime:keepVersions:now:)`` must read the lock and
/// write the result in one transaction, because that is what makes a lock race have exactly one winner.
/// `SQLiteStore` is the embedded default.
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
    /// Replaces a user's password hash and, in the same transaction, ends every web session of theirs
    /// (``WebSessionStore``), so a new password signs out every browser. Returns how many sessions ended;
    /// throws ``WOPIStoreError/notFound`` for an unknown user.
    func setPasswordHash(_ hash: PasswordHash, for userID: ResourceID) async throws -> Int

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
    /// ``updateLock(_:request:now:)-(ResourceID,_,_)`` for a file the caller has just read, during the same request: a
    /// store that compares and sets may decide on `file` instead of reading the row again. A refusal, or a grant that
    /// changes nothing, may be answered from `file` (it was the file's state during the request); a change must be
    /// applied only if the stored lock is still the one in `file`, and decided again on the stored row otherwise.
    /// The default reads the file again.
    func updateLock(_ file: FileRecord, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord)
    /// Every blob key a file or a kept version (``versions(of:)``) refers to, for garbage collection of orphans.
    ///
    /// Kept versions go with their file when it is deleted (``deleteFile(_:lock:now:)``), purged from the trash
    /// (``emptyTrash(ownedBy:trashedBefore:)``) or its owner removed; their bodies are then orphans that start-up
    /// garbage collection removes. A file in the trash still refers to its bodies.
    func referencedBlobs() async throws -> Set<BlobKey>
    /// The bodies of ``referencedBlobs()``, each once, with the size and SHA-256 recorded when it was written: what
    /// moving the bodies to another store copies and checks.
    func referencedBodies() async throws -> [StoredBlob]

    // Version history, lock administration, readiness.
    // A PostgreSQL implementation runs each of these in one transaction, locking the file's row
    // (`SELECT … FOR UPDATE`) before it reads the lock or the version list.

    /// Records new content for a file — checking the lock (PutFile rules) in the same transaction — and
    /// keeps the replaced content as a version.
    ///
    /// In one atomic step: evaluate `LockRules.Request.putFile(_:currentSize:)`; on a conflict throw
    /// ``WOPIStoreError/lockConflict(currentLock:reason:)`` and change nothing. Otherwise, if
    /// `keepVersions > 0`, record the replaced content (its version, size, SHA-256, body key, time
    /// and saver) as a kept version; give the file the new body, a new version number from the
    /// same counter as every other change, `now` as its time and `savedBy` as its saver; then drop
    /// the file's oldest kept versions beyond the newest `keepVersions`. `droppedBlobs` lists the
    /// bodies that neither any file nor any kept version refers to afterwards (with
    /// `keepVersions == 0`, the replaced body, unless something else still refers to it).
    /// `saveKinds` is kept with the new content (``FileVersionRecord/saveKinds``) and moves with it
    /// into the history. With `seenModifiedTime` (Collabora Online's `X-COOL-WOPI-Timestamp`), the
    /// same step evaluates `SaveTimestampRule` against the file's modification time and, when the
    /// file changed since, throws ``WOPIStoreError/changedInStorage`` and changes nothing.
    func saveContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, savedBy: ResourceID?, saveKinds: SaveKinds?,
                     seenModifiedTime: String?, keepVersions: Int, now: Date) async throws -> ContentChange

    /// A file's versions, newest first: the current content first, then the kept ones.
    /// Throws ``WOPIStoreError/notFound`` for an unknown file.
    func versions(of id: ResourceID) async throws -> [FileVersionRecord]

    /// Makes a kept version's content current again, as a new version, in one atomic step.
    ///
    /// Refused with ``WOPIStoreError/lockConflict(currentLock:reason:)`` (carrying the lock's value)
    /// while the file has a lock that has not expired at `now`, and with ``WOPIStoreError/notFound``
    /// when the file or `version` is unknown; both change nothing. `version` may name the current
    /// content too. Otherwise the current content is kept as a version (as in
    /// ``saveContent(_:with:lock:savedBy:saveKinds:seenModifiedTime:keepVersions:now:)``), the file takes the kept body's key,
    /// size and SHA-256 with a new version number, `now` and `restoredBy`, and the oldest kept
    /// versions beyond `keepVersions` are dropped. The restored body is never in `droppedBlobs`.
    func restoreVersion(_ id: ResourceID, version: Int64, restoredBy: ResourceID?, keepVersions: Int, now: Date) async throws -> ContentChange

    /// Every file whose lock has not expired at `now`, by expiry (soonest first).
    func activeLocks(at now: Date) async throws -> [FileRecord]

    /// Removes a file's lock whatever its value (an operator's "break lock"), in one atomic step.
    ///
    /// Returns the lock that was in force at `now` (`nil` when the file was unlocked or its lock had
    /// expired) and the file afterwards. Does not change the file's version. Throws
    /// ``WOPIStoreError/notFound`` for an unknown file.
    func breakLock(_ id: ResourceID, now: Date) async throws -> (removed: LockState?, file: FileRecord)

    /// Proves the store answers (a trivial query on its tables); throws when it does not.
    /// `GET /health/ready` calls it on every probe, so it must be cheap and must not write.
    func checkReadiness() async throws

    // AddActivities records.

    /// Records one AddActivities activity (``ActivityRecord``) with the users it mentions, in one atomic step.
    ///
    /// Activities are keyed by file and activity id (stored lower case, so UUIDs compare case-insensitively).
    /// Recording a key that is already stored changes nothing and returns `false` (a client retrying a
    /// batch must not duplicate it); otherwise the activity and its mentions are stored and `true` is
    /// returned. Throws ``WOPIStoreError/notFound`` and stores nothing when the file, the actor or a
    /// mentioned user does not exist. Activities go with their file when it is deleted, and with the
    /// actor or a mentioned user when that user is removed (``removeUser(id:)``).
    func recordActivity(_ activity: ActivityRecord) async throws -> Bool

    /// Every recorded activity that mentions `userID` (one of its ``ActivityRecord/mentionedUserIDs``),
    /// oldest first: by ``ActivityRecord/receivedAt``, then file id, then activity id. Each record carries
    /// all its mentioned users, not only `userID`. An unknown user has none.
    func activities(mentioning userID: ResourceID) async throws -> [ActivityRecord]

    // Who besides the owner may open an item, and the one-step reads every WOPI request starts with.

    /// Shares a file or container (and everything under it) with a user as `AccessRole.viewer` or
    /// `AccessRole.editor`; sharing it again with the same user replaces the role, in one atomic step.
    ///
    /// Throws ``WOPIStoreError/notFound`` when the item (of `kind`) or the user does not exist, and
    /// ``WOPIStoreError/notAllowed(_:)`` when the user owns the item or `role` is `AccessRole.owner`;
    /// both change nothing. Shares go with their item when it is deleted and with their user when removed.
    func share(_ itemID: ResourceID, kind: ShareRecord.ItemKind, with userID: ResourceID, role: AccessRole, now: Date) async throws -> ShareRecord

    /// Removes the share of an item with a user; `false` when there was none. Takes effect on the
    /// user's next request: nothing about a share is cached or carried in a token.
    func removeShare(of itemID: ResourceID, with userID: ResourceID) async throws -> Bool

    /// The shares made with `userID` (every share when `nil`), oldest first: by time, then item id, then user id.
    func shares(with userID: ResourceID?) async throws -> [ShareRecord]

    /// The shares of one item, by time, then user id.
    func shares(of itemID: ResourceID) async throws -> [ShareRecord]

    /// The caller, the file, the caller's role on the file and on its folder, and the folder's name — in one step.
    ///
    /// `nil` when the user does not exist. The role is `AccessRole.owner` for the file's owner, else the
    /// highest role among the shares of the file and of every container above it with this user, else `nil`.
    /// The folder role is the same rule applied to the file's container.
    func fileAccess(_ fileID: ResourceID, by userID: ResourceID) async throws -> FileAccess?

    /// The caller, the container and the caller's role on it (the rule of ``fileAccess(_:by:)``) — in one step.
    /// `nil` when the user does not exist.
    func containerAccess(_ containerID: ResourceID, by userID: ResourceID) async throws -> ContainerAccess?

    // Listings read a page at a time, so memory does not grow with the folder.

    /// Up to `limit` direct child containers of a container, sorted by name as in ``children(of:)``,
    /// starting after the child named `after` (case-insensitively) when it is given.
    ///
    /// Each page is one read: a child created, renamed or removed between two pages of a listing may
    /// be missed or seen twice, never half-written. An unknown container has no children.
    func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord]
    /// Up to `limit` files of a container, sorted by name as in ``children(of:)``, starting after the
    /// file named `after` (case-insensitively) when it is given. Same paging rules as
    /// ``childContainers(of:after:limit:)``.
    func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord]

    // The trash: a deleted item leaves its folder and every WOPI lookup (``file(id:)``, ``fileAccess(_:by:)``, …
    // answer as for an unknown id) but keeps its id, content, versions and shares until restored or purged.

    /// Moves a file to its owner's trash unless someone else holds its lock (``WOPIStoreError/lockConflict(currentLock:reason:)``).
    /// Its name is free in the folder at once; its body stays until the trash is emptied.
    func trashFile(_ id: ResourceID, lock: WOPILock?, now: Date) async throws -> TrashedItem
    /// Moves a folder with everything under it to its owner's trash, as one item.
    ///
    /// Throws ``WOPIStoreError/notEmpty`` when `onlyIfEmpty` (WOPI's DeleteContainer) and it has children,
    /// ``WOPIStoreError/notAllowed(_:)`` for a user's root, and ``WOPIStoreError/lockConflict(currentLock:reason:)``
    /// while a file under it holds a lock; all change nothing.
    func trashContainer(_ id: ResourceID, onlyIfEmpty: Bool, now: Date) async throws -> TrashedItem
    /// The items in `ownerID`'s trash (everyone's when `nil`), newest first, then by id.
    func trashedItems(ownedBy ownerID: ResourceID?) async throws -> [TrashedItem]
    /// Brings an item back from the trash with its id, content, versions and shares, in one atomic step.
    ///
    /// It goes back into its original folder, or into the owner's root when that folder is in the trash or
    /// gone (`TrashRules.destination(originalFolder:originalFolderIsLive:ownerRoot:)`), under its own name or
    /// `name`. Throws ``WOPIStoreError/notFound`` when it is not in the trash and
    /// ``WOPIStoreError/nameTaken(_:)`` when a sibling there has the name; both change nothing.
    func restoreFromTrash(_ id: ResourceID, as name: String?) async throws -> TrashRestore
    /// Removes for good the trashed items of `ownerID` (everyone's when `nil`) trashed before `trashedBefore`
    /// (all when `nil`), with everything under them; returns them and the bodies to delete.
    func emptyTrash(ownedBy ownerID: ResourceID?, trashedBefore: Date?) async throws -> TrashPurge
    /// Removes one item of `ownerID`'s trash for good, with everything under it, as ``emptyTrash(ownedBy:trashedBefore:)``
    /// removes them all. Throws ``WOPIStoreError/notFound`` when `ownerID`'s trash holds no item `id`.
    func deleteFromTrash(_ id: ResourceID, ownedBy ownerID: ResourceID) async throws -> TrashPurge

    // MARK: Secrets

    /// A host-wide secret, created with `make` the first time it is asked for and shared by every
    /// process and machine using this store.
    func hostSecret(named name: String, orCreate make: @Sendable () -> Data) async throws -> Data
    /// A host setting others may read, such as the public URL `wopi serve` last ran under.
    func hostSetting(named name: String) async throws -> String?
    /// Stores a host setting.
    func setHostSetting(_ value: String, named name: String) async throws
}

extension WOPIStore {
    /// Reads the file again: ``updateLock(_:request:now:)-(ResourceID,_,_)``.
    public func updateLock(_ file: FileRecord, request: LockRules.Request, now: Date) async throws -> (decision: LockRules.Decision, file: FileRecord) {
        try await updateLock(file.id, request: request, now: now)
    }

    /// ``saveContent(_:with:lock:savedBy:saveKinds:seenModifiedTime:keepVersions:now:)`` for a save of no stated kind
    /// and no modification time to compare.
    public func saveContent(_ id: ResourceID, with blob: StoredBlob, lock: WOPILock?, savedBy: ResourceID?, keepVersions: Int, now: Date) async throws
        -> ContentChange {
        try await saveContent(id, with: blob, lock: lock, savedBy: savedBy, saveKinds: nil, seenModifiedTime: nil, keepVersions: keepVersions, now: now)
    }

    /// A fallback for stores written before paging existed: reads all children and returns one page.
    /// `SQLiteStore` and `PostgresStore` read only the page.
    public func childContainers(of id: ResourceID, after: String?, limit: Int) async throws -> [ContainerRecord] {
        let all: [ContainerRecord]
        do { all = try await children(of: id).containers } catch WOPIStoreError.notFound { return [] }
        return WOPIStorePaging.page(of: all, name: \.name, after: after, limit: limit)
    }

    /// A fallback for stores written before paging existed: reads all children and returns one page.
    public func childFiles(of id: ResourceID, after: String?, limit: Int) async throws -> [FileRecord] {
        let all: [FileRecord]
        do { all = try await children(of: id).files } catch WOPIStoreError.notFound { return [] }
        return WOPIStorePaging.page(of: all, name: \.name, after: after, limit: limit)
    }
}

/// The order listings page in: ASCII letters folded to lower case, then bytes (SQLite's `NOCASE`).
enum WOPIStorePaging {
    /// Up to `limit` of `records` (already in name order) whose name comes after `after`, or from the start.
    static func page<Record>(of records: [Record], name: KeyPath<Record, String>, after: String?, limit: Int) -> [Record] {
        Array(records.filter { after == nil || isAfter($0[keyPath: name], after!) }.prefix(limit))
    }

    static func isAfter(_ name: String, _ cursor: String) -> Bool {
        folded(cursor).lexicographicallyPrecedes(folded(name))
    }

    private static func folded(_ text: String) -> [UInt8] {
        text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }
    }
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
    /// The change breaks a rule of the store's model (sharing an item with its owner); says which.
    case notAllowed(String)
    /// The file changed after the modification time a save was based on (`SaveTimestampRule`).
    case changedInStorage

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .notFound: "not found"
        case .nameTaken(let name): "the name '\(name)' is already taken"
        case .lockConflict(_, let reason): "lock conflict: \(reason)"
        case .notEmpty: "the container is not empty"
        case .notAllowed(let reason): reason
        case .changedInStorage: "the file changed in storage since the editor last saw it"
        }
    }
}
