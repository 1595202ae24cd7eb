import Foundation
import Testing
import WOPICore

/// Reading AddActivities bodies (docs/rest/src/files/AddActivities.rst and _fragments/activities/*.rst).
@Suite("AddActivities batches")
struct ActivityBatchTests {
    func read(_ json: String) throws -> ActivityBatch { try ActivityBatch(json: Data(json.utf8)) }

    @Test("The docs' sample: two comments accepted with all their fields, an unknown type answered as such")
    func documentedSample() throws {
        let batch = try read(#"""
            {"Activities": [
              {"Type": "comment", "Id": "1a3efa0b-8700-493e-b2a3-c5da5c8c7d5e", "Timestamp": "2017-03-15T13:47:13000000Z",
               "Data": {"CommentText": "Could you rewrite this?", "ContentId": "1269bac6", "NavigationId": "555f96d3", "ContentAction": "created"}},
              {"Type": "comment", "Id": "d9e36d38-e439-41df-973c-50fe7e5f6213", "Timestamp": "2017-02-15T13:45:30.0000000Z",
               "Data": {"CommentText": "@John Smith, check?", "IsReply": true, "ContentId": "1095fd8a", "NavigationId": "31a91946", "ContentAction": "created"},
               "People": [{"Name": "Jane Doe", "Id": "123456789", "Provider": "wopi-contoso", "InThread": true, "RepliedTo": true},
                          {"Name": "John Smith", "Id": "123123123", "Provider": "wopi-contoso", "Mentioned": true}]},
              {"Type": "edit", "Id": "c78a6655-6992-4814-809b-7ec9aa0db1", "Data": {"ContentId": "1234abcd", "ContentAction": "created"}}
            ], "Bonus": 1}
            """#)
        #expect(batch.entries.count == 3)
        guard case .accepted(let first) = batch.entries[0].outcome, case .accepted(let second) = batch.entries[1].outcome else {
            Issue.record("comments not accepted: \(batch.entries)")
            return
        }
        #expect(first == WOPIActivity(id: "1a3efa0b-8700-493e-b2a3-c5da5c8c7d5e", kind: .comment, timestamp: "2017-03-15T13:47:13000000Z",
                                      contentID: "1269bac6", contentAction: .created, navigationID: "555f96d3",
                                      commentText: "Could you rewrite this?", isReply: nil, people: []))
        #expect(second.isReply == true)
        #expect(second.mentionedPeople.map(\.name) == ["John Smith"])
        #expect(second.people[0].inThread && second.people[0].repliedTo && !second.people[0].mentioned)
        #expect(second.people.allSatisfy { $0.isWOPIUser })
        #expect(batch.entries[2].outcome == .unknownType("edit"))
    }

    @Test("The validator's shapes: no Timestamp, bonus members, upper-case ids, 1024-character ids, unknown types without Data")
    func validatorShapes() throws {
        let long = String(repeating: "x", count: 1024)
        let batch = try read(#"""
            {"Activities": [
              {"Type": "comment", "Id": "00000002-ABCD-ABCD-ABCD-ABCDEFABCDEF", "Created": "2017-02-15T13:47:13000000Z",
               "Data": {"ContentId": "\#(long)", "NavigationId": "\#(long)", "ContentAction": "deleted", "Bonus": [1]}, "Bonus": {}},
              {"Type": "mention", "Id": "0000000c-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "updated"},
               "People": [{"Name": "Don", "Id": "{00000000-0000-0000-0000-000000000000}", "Provider": "Windows Live", "Mentioned": true, "Bonus": "x"}]},
              {"Type": "unsupported", "Id": "0000000e-0000-0000-0000-000000000000"}
            ]}
            """#)
        guard case .accepted(let first) = batch.entries[0].outcome, case .accepted(let mention) = batch.entries[1].outcome else {
            Issue.record("not accepted: \(batch.entries)")
            return
        }
        #expect(first.timestamp == nil && first.contentID.count == 1024 && first.contentAction == .deleted)
        #expect(batch.entries[0].id == "00000002-ABCD-ABCD-ABCD-ABCDEFABCDEF")
        #expect(mention.kind == .mention && mention.mentionedPeople.count == 1 && !mention.people[0].isWOPIUser)
        #expect(batch.entries[2].outcome == .unknownType("unsupported"))
    }

    @Test("A comment or mention with a bad shape is a permanent failure of that activity alone", arguments: [
        (#""Id": "nope", "Data": {"ContentId": "c", "ContentAction": "created"}"#, "UUID"),
        (#""Id": "00000001-0000-0000-0000-000000000000""#, "Data"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentAction": "created"}"#, "ContentId"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": 7, "ContentAction": "created"}"#, "ContentId"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "Created"}"#, "ContentAction"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "\#(String(repeating: "y", count: 1025))", "ContentAction": "created"}"#, "ContentId"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "created", "IsReply": 1}"#, "IsReply"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "created", "CommentText": false}"#, "CommentText"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "created"}, "People": {}"#, "People"),
        (#""Id": "00000001-0000-0000-0000-000000000000", "Data": {"ContentId": "c", "ContentAction": "created"}, "People": [{"Mentioned": "yes"}]"#, "Mentioned"),
    ])
    func invalidActivities(_ members: String, _ named: String) throws {
        let batch = try read(#"{"Activities": [{"Type": "comment", \#(members)}, {"Type": "x", "Id": "y"}]}"#)
        guard case .invalid(let problem) = batch.entries[0].outcome else {
            Issue.record("accepted: \(batch.entries[0])")
            return
        }
        #expect(problem.contains(named), "\(problem)")
        #expect(batch.entries[1].outcome == .unknownType("x"))
    }

    @Test("Bodies that are not AddActivities requests throw", arguments: [
        "", "{", "[]", "null", #"{"Activities": null}"#, #"{"Activities": "x"}"#, #"{"Activities": [[]]}"#,
        #"{"Activities": [{"Type": "comment", "Id": 1}]}"#, #"{"Activities": [{"Id": "00000001-0000-0000-0000-000000000000", "Type": null}]}"#,
    ])
    func notABatch(_ body: String) {
        #expect(throws: ActivityBatch.FormatError.self) { try read(body) }
    }
}
