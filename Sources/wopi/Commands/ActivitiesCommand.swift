import ArgumentParser
import Foundation
import WOPICore
import WOPIHost

/// `wopi activities`: the comments and mentions Office reported with AddActivities.
struct ActivitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities",
        abstract: "Show the comments and mentions Office reported with AddActivities.",
        discussion: """
            Office for the web sends AddActivities when someone comments on a document or @mentions a person;
            `wopi serve` records comment and mention activities and the host users they mention.
            Works while `wopi serve` runs on the same data.
            """,
        subcommands: [List.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the activities that mention a user as a JSON array, oldest first.",
            discussion: """
                Each element has id (the activity's UUID), type (comment or mention), file, file_name, author (who sent it), \
                received (when the host got it), content_id, content_action (created, updated or deleted), mentioned (the \
                mentioned users' names) and people (everyone Office named, with name, id, provider, mentioned, in_thread, \
                replied_to), plus timestamp, navigation_id, comment_text and is_reply when Office sent them. \
                An unknown user is invalid input (exit 2).
                """
        )
        @Option(help: ArgumentHelp("The user whose mentions to list (sign-in name).", valueName: "name")) var user: String
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await dataOptions.withStorage { storage in
                guard let mentioned = try await storage.store.user(named: user) else { throw CLIError.InvalidInput("no user named '\(user)'") }
                var names: [ResourceID: String] = [:]
                func name(_ id: ResourceID) async throws -> String {
                    if let known = names[id] { return known }
                    let found = try await storage.store.user(id: id)?.name ?? id.rawValue
                    names[id] = found
                    return found
                }
                var rows: [[String: Any]] = []
                for record in try await storage.store.activities(mentioning: mentioned.id) {
                    let activity = record.activity
                    var row: [String: Any] = [
                        "id": activity.id, "type": activity.kind.rawValue, "file": record.fileID.rawValue,
                        "author": try await name(record.actorID), "received": isoTimestamp(record.receivedAt),
                        "content_id": activity.contentID, "content_action": activity.contentAction.rawValue,
                        "people": activity.people.map(Self.person),
                    ]
                    var mentionedNames: [String] = []
                    for id in record.mentionedUserIDs { mentionedNames.append(try await name(id)) }
                    row["mentioned"] = mentionedNames
                    row["file_name"] = try await storage.store.file(id: record.fileID)?.name
                    row["timestamp"] = activity.timestamp
                    row["navigation_id"] = activity.navigationID
                    row["comment_text"] = activity.commentText
                    row["is_reply"] = activity.isReply
                    rows.append(row)
                }
                try printJSONArray(rows)
            }
        }

        static func person(_ person: WOPIActivity.Person) -> [String: Any] {
            var row: [String: Any] = ["mentioned": person.mentioned, "in_thread": person.inThread, "replied_to": person.repliedTo]
            row["name"] = person.name
            row["email"] = person.email
            row["id"] = person.id
            row["provider"] = person.provider
            row["picture_url"] = person.pictureURL
            return row
        }
    }
}
