/// Everything a run of concurrent clients asked one or more WOPI hosts, what came back, and when the
/// faults injected meanwhile began and ended: the input of ``HistoryChecker``.
///
/// Times are offsets from the start of the run on one monotonic clock, as the recording process read
/// it when it sent a request and when its answer arrived (or it gave up).
public struct History: Sendable, Hashable {
    /// Every request, in any order.
    public var events: [HistoryEvent]
    /// The body each file held before the run, by file.
    public var initialBodies: [String: BodyDigest]
    /// The faults injected during the run.
    public var faults: [FaultWindow]

    /// A history of `events` on files that held `initialBodies` at the start, with `faults` injected meanwhile.
    public init(events: [HistoryEvent], initialBodies: [String: BodyDigest], faults: [FaultWindow] = []) {
        self.events = events
        self.initialBodies = initialBodies
        self.faults = faults
    }
}

/// One request of a history: who sent it, on which file, when, and what became of it.
public struct HistoryEvent: Sendable, Hashable {
    /// The client that sent it (a number the recorder chooses).
    public var client: Int
    /// The file's id.
    public var file: String
    /// What was asked.
    public var operation: HistoryOperation
    /// When the request was sent.
    public var invoked: Duration
    /// When its answer arrived, or when the client gave up waiting for one.
    public var completed: Duration
    /// What came back.
    public var outcome: HistoryOutcome

    /// A request that `client` sent on `file` at `invoked`, which ended at `completed` with `outcome`.
    public init(client: Int, file: String, operation: HistoryOperation, invoked: Duration, completed: Duration, outcome: HistoryOutcome) {
        self.client = client
        self.file = file
        self.operation = operation
        self.invoked = invoked
        self.completed = completed
        self.outcome = outcome
    }
}

/// The WOPI operations a history records, with the arguments that matter to the checker.
public enum HistoryOperation: Sendable, Hashable {
    /// Lock with the given lock id (also a refresh when the same id holds the lock).
    case lock(String)
    /// RefreshLock with the given lock id.
    case refreshLock(String)
    /// Unlock with the given lock id.
    case unlock(String)
    /// UnlockAndRelock from `old` to `new`.
    case unlockAndRelock(old: String, new: String)
    /// PutFile of `body`, under `lock` (or none).
    case putFile(lock: String?, body: BodyDigest)
    /// GetFile.
    case getFile
    /// CheckFileInfo.
    case checkFileInfo
    /// RenameFile to the given name.
    case renameFile(String)
    /// DeleteFile.
    case deleteFile
}

/// What became of a request.
public enum HistoryOutcome: Sendable, Hashable {
    /// A success (2xx), with what it showed of the file: GetFile's body and version, CheckFileInfo's version.
    case succeeded(HistoryObservation)
    /// An answer that refused or failed the request: it had no effect. Status 0: the request was never
    /// delivered (the connection was refused).
    case failed(status: Int)
    /// No answer: the connection broke, or the client stopped waiting; or an answer that does not say whether the
    /// request took effect (a recorder may count a server error to a change so). It may or may not have taken effect.
    case indeterminate
}

/// What a successful request showed of its file.
public struct HistoryObservation: Sendable, Hashable {
    /// The body GetFile returned.
    public var body: BodyDigest?
    /// The version the answer named (`X-WOPI-ItemVersion`, or CheckFileInfo's `Version`).
    public var version: String?

    /// An observation of `body` at `version`; either may be absent.
    public init(body: BodyDigest? = nil, version: String? = nil) {
        self.body = body
        self.version = version
    }

    /// Nothing observed (a Lock, say).
    public static let nothing = HistoryObservation()
}

/// A body, known by a digest the recorder computes (SHA-256, say) and a short label for reports.
public struct BodyDigest: Sendable, Hashable, CustomStringConvertible {
    /// The digest's text.
    public var value: String

    /// The body whose digest is `value`.
    public init(_ value: String) { self.value = value }

    /// The digest's first 12 characters.
    public var description: String { String(value.prefix(12)) }
}

/// A fault the run injected, from its start to its end.
public struct FaultWindow: Sendable, Hashable {
    /// What was done ("host a killed", "PostgreSQL stopped", …).
    public var kind: String
    /// When it began.
    public var start: Duration
    /// When it ended (the process restarted, the latency removed).
    public var end: Duration

    /// A fault of `kind` that lasted from `start` to `end`.
    public init(kind: String, start: Duration, end: Duration) {
        self.kind = kind
        self.start = start
        self.end = end
    }
}
