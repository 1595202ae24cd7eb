import Foundation
import WOPIHost
import GRDB
import WOPICore

/// AddActivities records on SQLite.
extension SQLiteStore {
    /// Records one AddActivities activity (`ActivityRecord`) with the users it mentions, in one atomic step.
    public func recordActivity(_ record: ActivityRecord) async throws -> Bool {
        try await pool.write { db in
            guard try Self.file(db, record.fileID) != nil,
                  try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [record.actorID.rawValue]) != nil
            else { throw WOPIStoreError.notFound }
            for user in record.mentionedUserIDs {
                guard try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [user.rawValue]) != nil else {
                    throw WOPIStoreError.notFound
                }
            }
            try db.execute(sql: """
                INSERT INTO activities (file_id, activity_id, kind, actor_id, received_at, activity_json) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (file_id, activity_id) DO NOTHING
                """, arguments: [record.fileID.rawValue, record.activity.id, record.activity.kind.rawValue, record.actorID.rawValue,
                                 record.receivedAt.timeIntervalSince1970, record.activityJSON])
            guard db.changesCount > 0 else { return false }
            for user in record.mentionedUserIDs {
                try db.execute(sql: "INSERT INTO activity_mentions (file_id, activity_id, user_id) VALUES (?, ?, ?)",
                               arguments: [record.fileID.rawValue, record.activity.id, user.rawValue])
            }
            return true
        }
    }

    /// Every recorded activity that mentions `userID` (one of its `ActivityRecord.mentionedUserIDs`),
    /// oldest first: by `ActivityRecord.receivedAt`, then file id, then activity id. Each record carries
    /// all its mentioned users, not only `userID`. An unknown user has none.
    public func activities(mentioning userID: ResourceID) async throws -> [ActivityRecord] {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT a.file_id, a.activity_id, a.actor_id, a.received_at, a.activity_json,
                       (SELECT group_concat(m2.user_id, ' ') FROM activity_mentions m2
                        WHERE m2.file_id = a.file_id AND m2.activity_id = a.activity_id) AS mentioned
                FROM activities a JOIN activity_mentions m ON m.file_id = a.file_id AND m.activity_id = a.activity_id
                WHERE m.user_id = ?
                ORDER BY a.received_at, a.file_id, a.activity_id
                """, arguments: [userID.rawValue])
            return try rows.map { row in
                let mentioned: String = row["mentioned"] ?? ""
                return ActivityRecord(fileID: try Self.id(row, "file_id"), activity: try ActivityRecord.activity(fromJSON: row["activity_json"]),
                                      actorID: try Self.id(row, "actor_id"), receivedAt: Date(timeIntervalSince1970: row["received_at"]),
                                      mentionedUserIDs: mentioned.split(separator: " ").compactMap { ResourceID(String($0)) })
            }
        }
    }
}
