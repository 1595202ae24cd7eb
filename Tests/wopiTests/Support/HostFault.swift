/// A defect planted in ``FaultyWOPIHost``, each one seen in a real WOPI host, with the checks of
/// `wopi check-host` that must catch it. The corpus `wopi check-host` is proven against.
enum HostFault: String, CaseIterable, Sendable, CustomStringConvertible {
    // CheckFileInfo
    case missingOwnerId = "missing-owner-id"
    case missingIsEduUser = "missing-is-edu-user"
    case isEduUserAsString = "is-edu-user-as-string"
    case colonInUserId = "colon-in-user-id"
    case wrongSize = "wrong-size"
    case supportsUpdateFalse = "supports-update-false"
    case userCanWriteFalse = "user-can-write-false"
    case folderLicensingDiffers = "folder-licensing-differs"
    case nullProperty = "null-property"
    case lastModifiedTimeNotUTC = "last-modified-time-not-utc"
    // Locks
    case getLock404WhenUnlocked = "get-lock-404-when-unlocked"
    case getLockEmptyWhenLocked = "get-lock-empty-when-locked"
    case locked423Not409 = "locked-423-not-409"
    case lockHeaderMissingWhenUnlocked = "lock-header-missing-when-unlocked"
    case wrongLockOnConflict = "wrong-lock-on-conflict"
    case unlockMismatchAnswers200 = "unlock-mismatch-answers-200"
    case refreshAnyLockAnswers200 = "refresh-any-lock-answers-200"
    case lockTruncatedTo255 = "lock-truncated-to-255"
    // Files
    case putFileStaleTimestamp = "put-file-stale-timestamp"
    case putWithoutLockOnNonEmptyFile = "put-without-lock-on-non-empty-file"
    case putWithWrongLockAnswers200 = "put-with-wrong-lock-answers-200"
    case putFileKeepsVersion = "put-file-keeps-version"
    case missingItemVersion = "missing-item-version"
    case getFileBodyShorterThanSize = "get-file-body-shorter-than-size"
    case keepsTruncatedUpload = "keeps-truncated-upload"
    case idChangesOnRename = "id-changes-on-rename"
    case renameIgnoresName = "rename-ignores-name"
    case invalidTokenAnswers500 = "invalid-token-answers-500"
    case putRelativeNotImplemented = "put-relative-not-implemented"
    case renameNotImplemented = "rename-not-implemented"
    case renameNotOffered = "rename-not-offered"
    case putRelativeCreatesAndAnswers500 = "put-relative-creates-and-answers-500"
    case putFileRefusedWithExternalLock = "put-file-refused-with-external-lock"
    case noContainers = "no-containers"
    // Browser editors
    case missingPostMessageOrigin = "missing-post-message-origin"
    case collaboraTimestampIgnored = "collabora-timestamp-ignored"
    case putFileWithoutLastModifiedTime = "put-file-without-last-modified-time"
    case collaboraOpaqueTimestamp = "collabora-opaque-timestamp"
    case collaboraWithoutPostMessageOrigin = "collabora-without-post-message-origin"

    var description: String { rawValue }

    /// What the host does wrong, in one line, and where such a host was seen.
    var summary: String {
        switch self {
        case .missingOwnerId: "CheckFileInfo has no OwnerId (a required property)"
        case .missingIsEduUser: "CheckFileInfo has no IsEduUser, which Office for iOS requires (cs3org/wopiserver)"
        case .isEduUserAsString: "IsEduUser is the string \"no\", not a Boolean"
        case .colonInUserId: "UserId holds ':' (\"corpus:user\"), a character Office for iOS refuses (cs3org/wopiserver)"
        case .wrongSize: "CheckFileInfo's Size is one byte more than the file"
        case .supportsUpdateFalse: "SupportsUpdate is false although PutFile works"
        case .userCanWriteFalse: "UserCanWrite is false for the file's owner"
        case .folderLicensingDiffers: "IsEduUser is true on the folder but false on its files"
        case .nullProperty: "BreadcrumbBrandName is null instead of left out (cs3org/wopiserver)"
        case .lastModifiedTimeNotUTC: "LastModifiedTime is \"2026-11-25 13:54:07.000\", not ISO 8601 UTC (cs3org/wopiserver)"
        case .getLock404WhenUnlocked: "GetLock on an unlocked file answers 404 (cs3org/wopiserver)"
        case .getLockEmptyWhenLocked: "GetLock on a locked file answers an empty X-WOPI-Lock"
        case .locked423Not409: "a lock mismatch answers 423 Locked instead of 409 (nextcloud/richdocuments#6054)"
        case .lockHeaderMissingWhenUnlocked: "a 409 on an unlocked file leaves X-WOPI-Lock out instead of sending it empty (petrsvihlik/WopiHost#359)"
        case .wrongLockOnConflict: "a 409 carries the lock the client sent, not the current one"
        case .unlockMismatchAnswers200: "Unlock with another lock answers 200 and unlocks"
        case .refreshAnyLockAnswers200: "RefreshLock with a made-up lock answers 200"
        case .lockTruncatedTo255: "lock ids are stored cut to 255 characters, so a 256-character lock never matches again"
        case .putFileStaleTimestamp: "a save after another upload started under the same lock (the dropped one) is refused as stale (cs3org/wopiserver)"
        case .putWithoutLockOnNonEmptyFile: "PutFile without a lock on a non-empty unlocked file answers 200"
        case .putWithWrongLockAnswers200: "PutFile with another lock than the file's answers 200 and writes (petrsvihlik/WopiHost#188)"
        case .putFileKeepsVersion: "PutFile changes neither Version, LastModifiedTime nor X-WOPI-ItemVersion"
        case .missingItemVersion: "GetFile, PutFile, Lock and Unlock send no X-WOPI-ItemVersion"
        case .getFileBodyShorterThanSize: "GetFile's body is one byte shorter than Size"
        case .keepsTruncatedUpload: "PutFile writes straight into the file, so a dropped upload leaves it truncated"
        case .idChangesOnRename: "RenameFile gives the file a new id, so its WOPISrc answers 404"
        case .renameIgnoresName: "RenameFile answers 200 with the new Name but keeps the old one"
        case .invalidTokenAnswers500: "CheckFileInfo with an invalid access token answers 500, not 401"
        case .putRelativeNotImplemented: "PutRelativeFile answers 501 (UserCanNotWriteRelative is true), so no scratch file can be made"
        case .renameNotImplemented: "SupportsRename and UserCanRename are true, but RenameFile answers 501"
        case .renameNotOffered: "no renaming: SupportsRename is false and RenameFile answers 501 (a host that does not offer it; nothing to catch)"
        case .putRelativeCreatesAndAnswers500: "PutRelativeFile makes the file, then answers 500 (cs3org/wopiserver)"
        case .putFileRefusedWithExternalLock: "every PutFile answers 409 with X-WOPI-Lock: External, a lock of the host's own (cs3org/wopiserver)"
        case .noContainers: "files only: no SupportsContainers and the container operations answer 501, as in many hosts made for Office for the web"
        case .missingPostMessageOrigin: "CheckFileInfo has no PostMessageOrigin, so a browser editor's messages reach no page"
        case .collaboraTimestampIgnored: "PutFile ignores X-COOL-WOPI-Timestamp, so a stale autosave overwrites another writer's save"
        case .putFileWithoutLastModifiedTime: "PutFile answers 200 without {\"LastModifiedTime\": …}, so Collabora's next autosave has no timestamp to send"
        case .collaboraOpaqueTimestamp: "LastModifiedTime \"2026-11-25 13:54:07.000\" with --client collabora, which keeps it as an opaque string (cs3org/wopiserver)"
        case .collaboraWithoutPostMessageOrigin: "no PostMessageOrigin with --client collabora, which reads it as optional"
        }
    }

    /// How `wopi check-host` reports the fault: a warning (still "ready"), or a host that is not ready.
    var isWarning: Bool {
        [.nullProperty, .lastModifiedTimeNotUTC, .collaboraOpaqueTimestamp, .collaboraWithoutPostMessageOrigin].contains(self)
    }

    /// A host that is ready without a warning: what it lacks is optional, and the checks that depend on
    /// it are skipped (``caughtBy`` then lists the skipped checks, `[skip]`).
    var isReady: Bool { self == .renameNotOffered }

    /// Checks that must pass although the fault is planted: one scenario's effects never fail another,
    /// and a value a client treats as optional or opaque never fails that client.
    var mustPass: [String] {
        switch self {
        case .idChangesOnRename: ["scenario open-edit-save", "scenario conflict", "scenario upload-pending", "scenario collabora"]
        case .collaboraOpaqueTimestamp: ["rule checkfileinfo.collabora-properties", "scenario collabora"]
        case .collaboraWithoutPostMessageOrigin: ["scenario collabora"]
        case .renameNotOffered: ["scenario conflict", "scenario upload-pending"]
        default: []
        }
    }

    /// Words the line of a check must hold, so the first line read names the real cause.
    var namedCause: (check: String, words: String)? {
        switch self {
        case .putFileRefusedWithExternalLock: ("scenario collabora", "409 naming the lock 'External'")
        case .idChangesOnRename: ("scenario rename", "the file's WOPISrc answers 404 since the rename")
        case .getLock404WhenUnlocked: ("rule getlock.unlocked-file", "GetLock answered HTTP 404 on the file, which no client had locked")
        default: nil
        }
    }

    /// What the run must say, after the checks, that it could not put back.
    var leftover: String? {
        switch self {
        case .idChangesOnRename: "left on the host: scenario rename: 'Plan.docx' is now named 'Plan renamed on iOS.docx' and still locked by 'WOPIKit-simulator-"
        default: nil
        }
    }

    /// The browser editor `wopi check-host --client` must be told about to catch it, if any.
    var client: String? {
        switch self {
        case .missingPostMessageOrigin: "office-web"
        case .collaboraTimestampIgnored, .putFileWithoutLastModifiedTime, .collaboraOpaqueTimestamp, .collaboraWithoutPostMessageOrigin,
             .putFileRefusedWithExternalLock, .idChangesOnRename: "collabora"
        default: nil
        }
    }

    /// The checks (`<suite> <name>`) that must report it: `[FAIL]`, or `[warn]` for a warning.
    var caughtBy: [String] {
        switch self {
        case .missingOwnerId: ["rule checkfileinfo.required-properties", "scenario open-edit-save"]
        case .missingIsEduUser: ["rule checkfileinfo.licensing-properties", "scenario open-edit-save"]
        case .isEduUserAsString: ["rule checkfileinfo.property-types"]
        case .colonInUserId: ["rule checkfileinfo.refused-characters"]
        case .wrongSize: ["scenario open-edit-save"]
        case .supportsUpdateFalse: ["scenario open-edit-save"]
        case .userCanWriteFalse: ["scenario open-edit-save"]
        case .folderLicensingDiffers: ["rule licensing.file-equals-folder"]
        case .nullProperty: ["rule checkfileinfo.no-null-values"]
        case .lastModifiedTimeNotUTC: ["rule checkfileinfo.last-modified-time"]
        case .getLock404WhenUnlocked: ["rule getlock.unlocked-file", "scenario open-edit-save", "scenario rename"]
        case .getLockEmptyWhenLocked: ["validator GetLock/files.GetLock", "scenario conflict"]
        case .locked423Not409: ["validator Locks/LockMismatchOnLockRequest", "scenario conflict"]
        case .lockHeaderMissingWhenUnlocked: ["scenario open-edit-save"]
        case .wrongLockOnConflict: ["validator Locks/LockMismatchOnLockRequest", "scenario conflict"]
        case .unlockMismatchAnswers200: ["validator Locks/LockMismatchOnUnlockRequest"]
        case .refreshAnyLockAnswers200: ["validator Locks/LockMismatchOnRefreshLockRequest", "scenario open-edit-save"]
        case .lockTruncatedTo255: ["validator Locks/LockLengthValidation"]
        case .putFileStaleTimestamp: ["scenario upload-pending"]
        case .putWithoutLockOnNonEmptyFile: ["validator EditFlows/PutUnlockedFileNotZeroBytes"]
        case .putWithWrongLockAnswers200: ["validator Locks/LockMismatchOnPutFileRequest", "scenario conflict"]
        case .putFileKeepsVersion: ["validator FileVersion/files.PutFileReturnsDifferentVersion", "scenario open-edit-save"]
        case .missingItemVersion: ["scenario open-edit-save", "scenario rename"]
        case .getFileBodyShorterThanSize: ["validator EditFlows/BasicEdit", "scenario open-edit-save"]
        case .keepsTruncatedUpload: ["scenario upload-pending"]
        case .idChangesOnRename: ["scenario rename"]
        case .renameIgnoresName: ["scenario rename"]
        case .invalidTokenAnswers500: ["validator CheckFileInfoSchema/CheckFileWithInvalidAccessToken"]
        case .putRelativeNotImplemented: ["validator scratch-file"]
        case .renameNotImplemented: ["scenario rename"]
        case .noContainers: ["rule checkfileinfo.containers-and-delete"]
        case .missingPostMessageOrigin: ["rule checkfileinfo.office-web-properties", "scenario office-web"]
        case .collaboraTimestampIgnored: ["scenario collabora"]
        case .putFileWithoutLastModifiedTime: ["scenario collabora"]
        case .renameNotOffered: ["scenario rename"]
        case .putRelativeCreatesAndAnswers500: ["validator scratch-file"]
        case .putFileRefusedWithExternalLock: ["scenario open-edit-save", "scenario collabora"]
        case .collaboraOpaqueTimestamp: ["rule checkfileinfo.last-modified-time"]
        case .collaboraWithoutPostMessageOrigin: ["rule checkfileinfo.collabora-properties"]
        }
    }
}
