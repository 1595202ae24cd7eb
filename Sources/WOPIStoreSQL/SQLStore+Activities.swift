import Foundation
import WOPICore
import WOPIHost

/// AddActivities records (tables `activities` and `activity_mentions`) and `TemplateOriginStore` (table
/// `template_origins`).
extension SQLStore {
    /// Records one AddActivities activity (`ActivityRecord`) with the users it mentions, in one atomic step.
    public func recordActivity(_ record: ActivityRecord) async throws -> Bool {
        try await transaction { session in
            for user in Set(record.mentionedUserIDs + [record.actorID]) {
                guard try await session.first("SELECT 1 FROM users WHERE id = \(user)") != nil else { throw WOPIStoreError.notFound }
            }
            guard try await session.first("SELECT 1 FROM files WHERE id = \(record.fileID) AND trash_id IS NULL") != nil else {
                throw WOPIStoreError.notFound
            }
            guard try await !session.rows("""
                INSERT INTO activities (file_id, activity_id, kind, actor_id, received_at, activity_json)
                VALUES (\(record.fileID), \(record.activity.id), \(record.activity.kind.rawValue), \(record.actorID), \(record.receivedAt),
                        \(record.activityJSON))
                ON CONFLICT (file_id, activity_id) DO NOTHING RETURNING activity_id
                """).isEmpty else { return false }
            for user in record.mentionedUserIDs {
                try await session.execute("""
                    INSERT INTO activity_mentions (file_id, activity_id, user_id) VALUES (\(record.fileID), \(record.activity.id), \(user))
                    """)
            }
            return true
        }
    }

    /// Every recorded activity that mentions `userID` (one of its `ActivityRecord.mentionedUserIDs`),
    /// oldest first: by `ActivityRecord.receivedAt`, then file id, then activity id. Each record carries
    /// all its mentioned users, not only `userID`. An unknown user has none.
    public func activities(mentioning userID: ResourceID) async throws -> [ActivityRecord] {
        try await rows("""
            SELECT a.file_id, a.actor_id, a.received_at, a.activity_json,
                   (SELECT \(unescaped: dialect.spaceSeparated("m2.user_id")) FROM activity_mentions m2
                    WHERE m2.file_id = a.file_id AND m2.activity_id = a.activity_id)
            FROM activities a JOIN activity_mentions m ON m.file_id = a.file_id AND m.activity_id = a.activity_id
            WHERE m.user_id = \(userID)
            ORDER BY a.received_at, a.file_id, a.activity_id
            """).map { row in
            ActivityRecord(fileID: try row.id(0, column: "activities.file_id"), activity: try ActivityRecord.activity(fromJSON: row.text(3)),
                           actorID: try row.id(1, column: "activities.actor_id"), receivedAt: try row.date(2),
                           mentionedUserIDs: try (row.optionalText(4) ?? "").split(separator: " ").map { try .stored(String($0), column: "activity_mentions.user_id") })
        }
    }

    /// Records that `fileID` was made from `templateID`, replacing an earlier record; `WOPIStoreError.notFound`
    /// when either file does not exist.
    public func recordTemplateOrigin(of fileID: ResourceID, template templateID: ResourceID) async throws {
        // Inserted only when both files exist, so an unknown id is "not found", never a constraint error.
        guard try await !write("""
            INSERT INTO template_origins (file_id, template_id)
            SELECT document.id, template.id FROM files AS document, files AS template WHERE document.id = \(fileID) AND template.id = \(templateID)
            ON CONFLICT (file_id) DO UPDATE SET template_id = excluded.template_id
            RETURNING file_id
            """).isEmpty else { throw WOPIStoreError.notFound }
    }

    /// The template `fileID` was made from, if any.
    public func templateOrigin(of fileID: ResourceID) async throws -> ResourceID? {
        try await first("SELECT template_id FROM template_origins WHERE file_id = \(fileID)")?.id(0, column: "template_origins.template_id")
    }
}
