import Foundation

/// One activity Office reported with AddActivities that the host understands: a comment or a mention
/// (docs/rest/src/files/AddActivities.rst, _fragments/activities/*.rst).
public struct WOPIActivity: Sendable, Hashable, Codable {
    /// The activity types a host records. Others are answered with ``ActivityBatch/Status/unknownType``.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A comment was created, updated or deleted (comment_activity.rst).
        case comment
        /// Someone was mentioned (mention_activity.rst).
        case mention
    }

    /// What happened to the content (common_content_data.rst, `ContentAction`).
    public enum ContentAction: String, Sendable, Hashable, Codable, CaseIterable {
        /// The content was added.
        case created
        /// The content was changed.
        case updated
        /// The content was removed.
        case deleted
    }

    /// A person involved in the activity (person_object.rst). Every field is optional.
    public struct Person: Sendable, Hashable, Codable {
        /// The friendly name.
        public var name: String?
        /// The e-mail address.
        public var email: String?
        /// An id the provider knows the person by; for WOPI people, the `UserId` from CheckFileInfo.
        public var id: String?
        /// The context `id` is meaningful in (for WOPI people, `wopi` plus the host's name).
        public var provider: String?
        /// A picture of the person.
        public var pictureURL: String?
        /// The person was mentioned.
        public var mentioned: Bool
        /// The person takes part in the comment thread.
        public var inThread: Bool
        /// The activity replies to this person.
        public var repliedTo: Bool

        /// Creates a person.
        public init(name: String? = nil, email: String? = nil, id: String? = nil, provider: String? = nil, pictureURL: String? = nil,
                    mentioned: Bool = false, inThread: Bool = false, repliedTo: Bool = false) {
            self.name = name
            self.email = email
            self.id = id
            self.provider = provider
            self.pictureURL = pictureURL
            self.mentioned = mentioned
            self.inThread = inThread
            self.repliedTo = repliedTo
        }

        /// Whether `id` is a WOPI user id of this host: no provider, or a provider starting with `wopi`
        /// (person_object.rst: the client sends `wopi_` plus the host name; the validator `wopi-contoso`).
        public var isWOPIUser: Bool { provider.map { $0.lowercased().hasPrefix("wopi") } ?? true }
    }

    /// The activity id (a UUID), as sent.
    public var id: String
    /// The activity type.
    public var kind: Kind
    /// `Timestamp` as the client sent it, if it did; clients are known to send malformed ones, so it is not parsed.
    public var timestamp: String?
    /// `ContentId`: the content in the document the activity is about (at most 1024 characters).
    public var contentID: String
    /// `ContentAction`.
    public var contentAction: ContentAction
    /// `NavigationId`: a deep link into the document (at most 1024 characters).
    public var navigationID: String?
    /// `CommentText` (comments only).
    public var commentText: String?
    /// `IsReply` (comments only).
    public var isReply: Bool?
    /// The people involved.
    public var people: [Person]

    /// Creates an activity.
    public init(id: String, kind: Kind, timestamp: String? = nil, contentID: String, contentAction: ContentAction,
                navigationID: String? = nil, commentText: String? = nil, isReply: Bool? = nil, people: [Person] = []) {
        self.id = id
        self.kind = kind
        self.timestamp = timestamp
        self.contentID = contentID
        self.contentAction = contentAction
        self.navigationID = navigationID
        self.commentText = commentText
        self.isReply = isReply
        self.people = people
    }

    /// The people marked `Mentioned`.
    public var mentionedPeople: [Person] { people.filter(\.mentioned) }
}
