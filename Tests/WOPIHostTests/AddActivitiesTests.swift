import Foundation
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Testing
import WOPICore
@testable import WOPIHost

/// AddActivities over real HTTP (docs/rest/src/files/AddActivities.rst).
@Suite("AddActivities")
struct AddActivitiesTests {
    func batch(_ activities: String) -> Data { Data(#"{"Activities": [\#(activities)]}"#.utf8) }

    func comment(_ id: String, mentioning userID: String? = nil, extra: String = "") -> String {
        let people = userID.map { #", "People": [{"Name": "Bob", "Id": "\#($0)", "Provider": "wopi_WOPIKit", "Mentioned": true}]"# } ?? ""
        return #"""
            {"Type": "comment", "Id": "\#(id)", "Timestamp": "2017-02-15T13:45:30.0000000Z",
             "Data": {"CommentText": "@Bob could you check?", "IsReply": false, "ContentId": "c1", "NavigationId": "n1", "ContentAction": "created"\#(extra)}\#(people)}
            """#
    }

    @Test("CheckFileInfo says SupportsAddActivities; comments and mentions are recorded, with the users they mention")
    func recordsCommentsAndMentions() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let bob = try await host.makeUser("bob")
            // A mention reaches only someone who may open the document.
            _ = try await host.folder.store.share(doc.file.id, kind: .file, with: bob.id, role: .viewer, now: host.clock.now())
            #expect(try await host.checkFileInfo(doc.id, token: doc.token).json()["SupportsAddActivities"]?.bool == true)

            let body = batch([
                comment("1A3EFA0B-8700-493E-B2A3-C5DA5C8C7D5E", mentioning: bob.id.rawValue),
                #"{"Type": "mention", "Id": "d9e36d38-e439-41df-973c-50fe7e5f6213", "Data": {"ContentId": "c2", "ContentAction": "updated"}, "People": [{"Id": "\#(bob.id.rawValue)", "Mentioned": true}, {"Id": "\#(doc.user.id.rawValue)", "InThread": true}]}"#,
                #"{"Type": "edit", "Id": "c78a6655-6992-4814-809b-7ec9aa0db1"}"#,
                #"{"Type": "comment", "Id": "not-a-uuid", "Data": {"ContentId": "c", "ContentAction": "created"}}"#,
                #"{"Type": "comment", "Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "moved"}}"#,
                comment("00000002-0000-0000-0000-000000000000", mentioning: "0123456789abcdef0123456789abcdef"),
            ].joined(separator: ","))
            let response = try await host.override(TestHost.filePath(doc.id), "ADD_ACTIVITIES", token: doc.token, body: body)
            expectStatus(response, 200)
            let results = try #require(try response.json()["ActivityResponses"]?.array, "\(response)")
            #expect(results.map { $0["Id"]?.string } == ["1A3EFA0B-8700-493E-B2A3-C5DA5C8C7D5E", "d9e36d38-e439-41df-973c-50fe7e5f6213",
                                                         "c78a6655-6992-4814-809b-7ec9aa0db1", "not-a-uuid",
                                                         "00000001-0000-0000-0000-000000000000", "00000002-0000-0000-0000-000000000000"],
                    "the Id is echoed exactly as sent, in request order")
            #expect(results.map { $0["Status"]?.int } == [0, 0, 3, 2, 2, 0])
            #expect(results[3]["Message"]?.string?.contains("UUID") == true)
            #expect(results[4]["Message"]?.string?.contains("ContentAction") == true)

            let forBob = try await host.backend.store.activities(mentioning: bob.id)
            #expect(forBob.map(\.activity.id) == ["1a3efa0b-8700-493e-b2a3-c5da5c8c7d5e", "d9e36d38-e439-41df-973c-50fe7e5f6213"])
            #expect(forBob.allSatisfy { $0.actorID == doc.user.id && $0.fileID == doc.file.id })
            #expect(forBob.first?.activity.commentText == "@Bob could you check?")
            #expect(forBob.first?.activity.navigationID == "n1")
            #expect(forBob.last?.activity.kind == .mention)
            #expect(try await host.backend.store.activities(mentioning: doc.user.id).isEmpty, "in a thread is not mentioned")

            // The same batch again (a retry) records nothing twice; the docs' own path works too.
            var headers = [("X-WOPI-Override", "ADD_ACTIVITIES")]
            let again = try await host.send(.POST, TestHost.filePath(doc.id) + "/activities", token: doc.token, headers: headers,
                                            body: .bytes(ByteBuffer(bytes: body)))
            expectStatus(again, 200)
            #expect(try again.json()["ActivityResponses"]?.array?.map { $0["Status"]?.int } == [0, 0, 3, 2, 2, 0])
            #expect(try await host.backend.store.activities(mentioning: bob.id).count == 2)
            headers = [("X-WOPI-Override", "PUT")]
            expectStatus(try await host.send(.POST, TestHost.filePath(doc.id) + "/activities", token: doc.token, headers: headers,
                                             body: .bytes(ByteBuffer(bytes: body))), 400)
        }
    }

    @Test("A mention of a user who may not open the document is kept in the activity but reaches nobody")
    func mentionsNeedAccess() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let mallory = try await host.makeUser("mallory")
            let response = try await host.override(TestHost.filePath(doc.id), "ADD_ACTIVITIES", token: doc.token,
                                                   body: batch(comment("00000009-0000-0000-0000-000000000000", mentioning: mallory.id.rawValue)))
            #expect(try response.json()["ActivityResponses"]?.array?.first?["Status"]?.int == 0)
            #expect(try await host.backend.store.activities(mentioning: mallory.id).isEmpty, "the comment must not leak to mallory")
            _ = try await host.folder.store.share(doc.file.id, kind: .file, with: mallory.id, role: .viewer, now: host.clock.now())
            _ = try await host.override(TestHost.filePath(doc.id), "ADD_ACTIVITIES", token: doc.token,
                                        body: batch(comment("0000000a-0000-0000-0000-000000000000", mentioning: mallory.id.rawValue)))
            #expect(try await host.backend.store.activities(mentioning: mallory.id).map(\.activity.id) == ["0000000a-0000-0000-0000-000000000000"])
        }
    }

    @Test("A body that is not an AddActivities request is refused with 400 and records nothing; an empty batch is fine",
          arguments: ["", "not json", "[]", #"{"activities": []}"#, #"{"Activities": {}}"#, #"{"Activities": [42]}"#,
                      #"{"Activities": [{"Type": "comment"}]}"#, #"{"Activities": [{"Id": "00000001-0000-0000-0000-000000000000"}]}"#])
    func malformedBodies(_ body: String) async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let bob = try await host.makeUser("bob")
            let response = try await host.override(TestHost.filePath(doc.id), "ADD_ACTIVITIES", token: doc.token, body: Data(body.utf8))
            expectStatus(response, 400, body)
            #expect(try await host.backend.store.activities(mentioning: bob.id).isEmpty)
            let empty = try await host.override(TestHost.filePath(doc.id), "ADD_ACTIVITIES", token: doc.token, body: batch(""))
            expectStatus(empty, 200)
            #expect(try empty.json()["ActivityResponses"]?.array?.isEmpty == true)
        }
    }

    @Test("Without a valid token AddActivities is refused like every WOPI operation")
    func needsToken() async throws {
        try await TestHost.run { host in
            let doc = try await host.document()
            let response = try await host.override(TestHost.filePath(doc.id), "ADD_ACTIVITIES", token: "bogus", body: batch(comment("00000001-0000-0000-0000-000000000000")))
            expectStatus(response, 401)
        }
    }
}
