import Foundation
import WOPICore

/// An activity recorded from AddActivities: what Office reported, on which file, by whom,
/// and which of the host's users it mentions.
public struct ActivityRecord: Sendable, Hashable {
    /// The file the activity is about.
    public var fileID: ResourceID
    /// The activity as Office sent it (its `Id` in canonical lower case).
    public var activity: WOPIActivity
    /// The user whose access token sent it: the author (activity_object.rst: a creator sent by the client is ignored).
    public var actorID: ResourceID
    /// When the host received it.
    public var receivedAt: Date
    /// The host's users the activity mentions, sorted, without duplicates.
    public var mentionedUserIDs: [ResourceID]

    /// Creates a record; the activity id is lowercased and the mentioned users sorted and deduplicated.
    public init(fileID: ResourceID, activity: WOPIActivity, actorID: ResourceID, receivedAt: Date, mentionedUserIDs: [ResourceID]) {
        var activity = activity
        activity.id = activity.id.lowercased()
        self.fileID = fileID
        self.activity = activity
        self.actorID = actorID
        self.receivedAt = receivedAt
        self.mentionedUserIDs = Array(Set(mentionedUserIDs)).sorted { $0.rawValue < $1.rawValue }
    }

    /// The activity as stored: JSON of ``WOPIActivity`` (sorted keys, so equal activities store equal text).
    package var activityJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(activity)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Decodes ``activityJSON``.
    package static func activity(fromJSON text: String) throws -> WOPIActivity {
        try JSONDecoder().decode(WOPIActivity.self, from: Data(text.utf8))
    }
}
