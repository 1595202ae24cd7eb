import Foundation
import WOPIHost
import PostgresNIO
import WOPICore

/// AddActivities records on PostgreSQL: one transaction per activity.
extension PostgresStore {
    /// Records one AddActivities activity (`ActivityRecord`) with the users it mentions, in one atomic step.
    public func recordActivity(_ record: ActivityRecord) async throws -> Bool {
        let users = Array(Set(record.mentionedUserIDs.map(\.rawValue) + [record.actorID.rawValue]))
        return try await transaction { connection in
            let known = try await Self.all(connection, "SELECT id FROM users WHERE id = ANY(\(users))", logger: self.logger) {
                try $0.decode(String.self)
            }
            guard Set(known) == Set(users),
                  try await Self.first(connection, "SELECT id FROM files WHERE id = \(record.fileID.rawValue)", logger: self.logger, {
                      try $0.decode(String.self)
                  }) != nil
            else { throw WOPIStoreError.notFound }
            let inserted = try await Self.all(connection, """
                INSERT INTO activities (file_id, activity_id, kind, actor_id, received_at, activity_json)
                VALUES (\(record.fileID.rawValue), \(record.activity.id), \(record.activity.kind.rawValue), \(record.actorID.rawValue),
                        \(record.receivedAt.timeIntervalSince1970), \(record.activityJSON))
                ON CONFLICT (file_id, activity_id) DO NOTHING RETURNING activity_id
                """, logger: self.logger) { try $0.decode(String.self) }
            guard !inserted.isEmpty else { return false }
            for user in record.mentionedUserIDs {
                try await connection.query("""
                    INSERT INTO activity_mentions (file_id, activity_id, user_id)
                    VALUES (\(record.fileID.rawValue), \(record.activity.id), \(user.rawValue))
                    """, logger: self.logger)
            }
            return true
        }
    }

    /// Every recorded activity that mentions `userID` (one of its `ActivityRecord.mentionedUserIDs`),
    /// oldest first: by `ActivityRecord.receivedAt`, then file id, then activity id. Each record carries
    /// all its mentioned users, not only `userID`. An unknown user has none.
    public func activities(mentioning userID: ResourceID) async throws -> [ActivityRecord] {
        try await all("""
            SELECT a.file_id, a.activity_id, a.actor_id, a.received_at, a.activity_json,
                   (SELECT string_agg(m2.user_id, ' ') FROM activity_mentions m2
                    WHERE m2.file_id = a.file_id AND m2.activity_id = a.activity_id)
            FROM activities a JOIN activity_mentions m ON m.file_id = a.file_id AND m.activity_id = a.activity_id
            WHERE m.user_id = \(userID.rawValue)
            ORDER BY a.received_at, a.file_id, a.activity_id
            """) { row in
            let (file, _, actor, received, json, mentioned) = try row.decode((String, String, String, Double, String, String?).self)
            return ActivityRecord(fileID: try Self.id(file), activity: try ActivityRecord.activity(fromJSON: json), actorID: try Self.id(actor),
                                  receivedAt: Date(timeIntervalSince1970: received),
                                  mentionedUserIDs: (mentioned ?? "").split(separator: " ").compactMap { ResourceID(String($0)) })
        }
    }
}
