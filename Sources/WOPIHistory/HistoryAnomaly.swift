/// A promise a history shows broken, with the requests that show it.
public struct HistoryAnomaly: Sendable, Hashable, CustomStringConvertible {
    /// Which promise.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A read returned a body that an acknowledged save had replaced before the read began.
        case lostUpdate = "lost-update"
        /// A read returned the body of a save the host refused.
        case refusedSaveVisible = "refused-save-visible"
        /// A read returned the body of a save that got no answer, after that save's bound had passed.
        case lateSave = "late-save"
        /// A read returned a body no save sent: torn, mixed, or from nowhere.
        case unknownBody = "unknown-body"
        /// Two clients held the file's lock at once.
        case doubleLockGrant = "double-lock-grant"
        /// A DeleteFile succeeded while a client held the file's lock.
        case deletedWhileLocked = "deleted-while-locked"
        /// One version was shown with two different bodies.
        case versionReused = "version-reused"
        /// A version came back after a later one had been shown.
        case versionWentBack = "version-went-back"
        /// A request was answered (or given up on) after its bound.
        case slowAnswer = "slow-answer"
        /// A request failed with a server error, or went unanswered, outside a fault and its recovery time.
        case serviceNotRestored = "service-not-restored"
    }

    /// Which promise is broken.
    public var kind: Kind
    /// The file concerned.
    public var file: String
    /// What happened, in one sentence.
    public var explanation: String
    /// The requests that show it, the offending one last.
    public var events: [HistoryEvent]

    /// An anomaly of `kind` on `file`, explained in one sentence, shown by `events`.
    public init(kind: Kind, file: String, explanation: String, events: [HistoryEvent]) {
        self.kind = kind
        self.file = file
        self.explanation = explanation
        self.events = events
    }

    /// `kind` and the explanation, on one line.
    public var description: String { "\(kind.rawValue) on \(file): \(explanation)" }
}
