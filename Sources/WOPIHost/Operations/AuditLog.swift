import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only file of JSON lines, one per change or refusal that matters (`--audit-log PATH`):
/// an export of the events the store's trail (``AuditTrail``, ``AuditStore``) keeps for the fleet.
///
/// Each line is written with one `write(2)` on a descriptor opened with `O_APPEND`, so lines from
/// `wopi serve` and from admin commands (`wopi locks break`, `wopi files restore`) never interleave.
/// Events carry names, ids, versions and lock values, never a token, a code or a password.
public final class AuditLog: Sendable {
    private let descriptor: Int32
    /// Where the log is.
    public let path: String

    /// Opens (creating with mode 0600 if needed) the log at `path` for appending.
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot open audit log '\(path)': \(String(cString: strerror(errno)))"])
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Appends one event as one line.
    public func record(_ event: AuditEvent) {
        var line = event.jsonLine()
        line.append(UInt8(ascii: "\n"))
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

/// One audit record: what happened, when, to which file, by whom, in which request.
public struct AuditEvent: Sendable, Hashable {
    /// What happened; the `event` field.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A password sign-in succeeded (`user` is who signed in).
        case signInOK = "signin.ok"
        /// A password sign-in failed or was refused (`user` is the name tried; `reason`: `wrong_credentials`,
        /// `throttled`, or `cross_site` for a web sign-in form another site or origin sent).
        case signInFailed = "signin.failed"
        /// A sign-in through the OpenID Connect provider was refused (`reason`, e.g. `wrong_issuer`, `nonce_mismatch`,
        /// `state_unknown`, `provider_unavailable`; `via`: web or oauth). Never holds a token or a code.
        case signInRefused = "signin.refused"
        /// A web-front session ended by signing out (`user`; `via`: web).
        case signedOut = "signout"
        /// Every web-front session of a user ended (`user`; `count`; `reason`: `sign_out` for
        /// `wopi users sign-out`, `password_changed`).
        case sessionsEnded = "sessions.ended"
        /// A WOPI access token was refused (`reason`: missing, malformed, bad_signature, expired, wrong_resource, unknown_user).
        case tokenRefused = "token.refused"
        /// Lock or UnlockAndRelock took a lock (`lock`).
        case lockTaken = "lock.taken"
        /// A lock refused a change (`operation`, and `lock`, the current lock).
        case lockRefused = "lock.refused"
        /// Unlock released a lock (`lock`).
        case lockReleased = "lock.released"
        /// An operator broke a lock with `wopi locks break` (`lock`).
        case lockBroken = "lock.broken"
        /// PutFile saved new content (`old_version`, `new_version`, `size`).
        case fileSaved = "file.saved"
        /// A document body could not be written, so nothing was saved (`operation`, and `reason`: `no_space`,
        /// `quota`, `read_only`, `io`, `permission` or `other`).
        case writeFailed = "file.write_failed"
        /// RenameFile renamed a file (`old_name`, `new_name`).
        case fileRenamed = "file.renamed"
        /// DeleteFile, the web front or `wopi files delete` moved a file to its owner's trash (`version`, `via`).
        case fileDeleted = "file.deleted"
        /// DeleteContainer, the web front or `wopi files delete` moved a folder with its contents to its owner's trash (`name`, `via`).
        case containerDeleted = "container.deleted"
        /// An item came back from the trash (`kind`, `name`, `folder`, `to_root` when its folder was gone, `via`).
        case trashRestored = "trash.restored"
        /// An item left the trash for good (`kind`, `name`, `reason`: `emptied` by `wopi trash empty`, or `expired` past `--trash-days`).
        case trashPurged = "trash.purged"
        /// `wopi files restore` made an earlier version current (`restored`, `old_version`, `new_version`).
        case fileRestored = "file.restored"
        /// GetShareUrl created a share link (`kind`: file or container); the link itself is never logged.
        case shareLinkCreated = "sharelink.created"
        /// An item was shared with a user (`role`, and `via`: `link` for a ReadWrite link accepted on the
        /// share page, `cli` for `wopi shares add`); `user` is the user it was shared with.
        case shareAdded = "share.added"
        /// `wopi shares remove` stopped sharing an item with a user (`role`, the role it had); `user` is that user.
        case shareRemoved = "share.removed"
        /// The token endpoint refused a grant (`reason`: invalid_grant, invalid_client or throttled; `client`).
        case grantRefused = "grant.refused"
        /// `wopi users add` created a user, or a person's first sign-in through the OpenID Connect provider did
        /// (`user`; `via`: cli or oidc; `issuer` for oidc).
        case userAdded = "user.added"
        /// `wopi users link` linked a user to a person at an OpenID Connect provider (`user`; `issuer`; never the subject).
        case identityLinked = "user.linked"
        /// `wopi users remove` removed a user with their files (`user`).
        case userRemoved = "user.removed"
        /// `wopi users passwd` gave a user a new password (`user`; `sessions_ended`, how many web sessions it ended).
        case passwordChanged = "user.password_changed"
        /// `wopi files add` stored a new file (`name`, `size`, `owner`).
        case fileAdded = "file.added"
        /// `wopi token` issued a WOPI access token (`user`, `expires_at`); the token itself is never recorded.
        case tokenIssued = "token.issued"
    }

    /// What happened.
    public var kind: Kind
    /// When.
    public var time: Date
    /// The user's sign-in name (for a failed sign-in, the name tried), if any.
    public var user: String?
    /// The file (or container) id, if any.
    public var file: String?
    /// The request's id (Hummingbird's `hb.request.id`), or `nil` for an admin command.
    public var requestID: String?
    /// Event details: `old_version`, `new_version`, `lock`, `reason`, `operation`, `via`, …
    public var details: [String: String]

    /// Creates an event.
    public init(_ kind: Kind, time: Date = Date(), user: String? = nil, file: String? = nil, requestID: String? = nil, details: [String: String] = [:]) {
        self.kind = kind
        self.time = time
        self.user = user
        self.file = file
        self.requestID = requestID
        self.details = details
    }

    /// The event as one line of JSON (sorted keys, no trailing newline).
    public func jsonLine() -> Data {
        var object: [String: Any] = details
        object["event"] = kind.rawValue
        object["time"] = Self.timeText(time)
        object["user"] = user ?? NSNull()
        object["file"] = file ?? NSNull()
        object["request_id"] = requestID ?? NSNull()
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// A time as the `time` field writes it: ISO 8601 in UTC with milliseconds (`2026-11-25T14:55:00.123Z`).
    public static func timeText(_ time: Date) -> String {
        // A format style, not an ISO8601DateFormatter: making one of those per line cost ~100 µs.
        time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
