import Foundation
import Testing

/// AddActivities through real processes: Office's AddActivities against `wopi serve`, then
/// `wopi activities list --user` showing the mentioned user their mentions.
@Suite(.serialized) struct ActivitiesCLITests {
    @Test("AddActivities over HTTP records a comment mentioning bob; `wopi activities list --user bob` prints it, alice sees none",
          .timeLimit(.minutes(10)))
    func mentionsAreListedForTheMentionedUser() async throws {
        let setup = try await OperationsCLITests.makeSetup()
        defer { setup.remove() }
        let added = try await WopiProcess.run(["users", "add", "bob", "--password", OperationsCLITests.password, "--data", setup.data.path])
        try #require(added.exitCode == 0, "users add: \(added.stderr)")
        let bobID = try #require(try OperationsCLITests.json(added.stdout)["id"] as? String)
        // A mention reaches only someone who may open the document: share it with bob.
        let shared = try await WopiProcess.run(["shares", "add", setup.fileID, "--with", "bob", "--role", "viewer", "--data", setup.data.path])
        try #require(shared.exitCode == 0, "shares add: \(shared.stderr)")

        let server = try await WopiServer.start(data: setup.data)
        defer { server.stop() }
        let info = try await OperationsCLITests.checkFileInfo(server, setup)
        #expect(info["SupportsAddActivities"] as? Bool == true)
        let body = #"""
            {"Activities": [
              {"Type": "comment", "Id": "1a3efa0b-8700-493e-b2a3-c5da5c8c7d5e", "Timestamp": "2026-11-23T19:00:00.0000000Z",
               "Data": {"CommentText": "@Bob please check", "IsReply": true, "ContentId": "c1", "NavigationId": "n1", "ContentAction": "created"},
               "People": [{"Name": "Bob", "Id": "\#(bobID)", "Provider": "wopi_WOPIKit", "Mentioned": true}]},
              {"Type": "comment", "Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c2", "ContentAction": "created"}},
              {"Type": "edit", "Id": "00000002-0000-0000-0000-000000000000"}
            ]}
            """#
        let response = try await RawHTTPConnection.request(port: server.port, "POST", "\(setup.path)?\(setup.query)",
                                                     ["X-WOPI-Override: ADD_ACTIVITIES", "Content-Type: application/json"], body: Data(body.utf8))
        #expect(response.status == 200, "\(response)")
        let statuses = try (OperationsCLITests.json(response.text)["ActivityResponses"] as? [[String: Any]])?.map { $0["Status"] as? Int }
        #expect(statuses == [0, 0, 3])

        let listed = try await WopiProcess.run(["activities", "list", "--user", "bob", "--data", setup.data.path])
        #expect(listed.exitCode == 0, "\(listed.stderr)")
        let activities = try OperationsCLITests.jsonArray(listed.stdout)
        try #require(activities.count == 1, "\(listed.stdout)")
        let activity = activities[0]
        #expect(activity["id"] as? String == "1a3efa0b-8700-493e-b2a3-c5da5c8c7d5e")
        #expect(activity["type"] as? String == "comment")
        #expect(activity["file"] as? String == setup.fileID)
        #expect(activity["file_name"] as? String == "Plan.docx")
        #expect(activity["author"] as? String == "alice")
        #expect(activity["comment_text"] as? String == "@Bob please check")
        #expect(activity["is_reply"] as? Bool == true)
        #expect(activity["content_action"] as? String == "created")
        #expect(activity["mentioned"] as? [String] == ["bob"])
        #expect((activity["people"] as? [[String: Any]])?.first?["id"] as? String == bobID)

        let none = try await WopiProcess.run(["activities", "list", "--user", "alice", "--data", setup.data.path])
        #expect(none.exitCode == 0, "\(none.stderr)")
        let noneListed = try OperationsCLITests.jsonArray(none.stdout)
        #expect(noneListed.isEmpty, "\(none.stdout)")
        let unknown = try await WopiProcess.run(["activities", "list", "--user", "nobody", "--data", setup.data.path])
        #expect(unknown.exitCode == 2 && unknown.stderrLines.count == 1 && unknown.stderr.contains("nobody"), "\(unknown.stderr)")
    }
}
