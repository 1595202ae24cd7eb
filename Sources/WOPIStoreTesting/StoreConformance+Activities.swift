import Foundation
import Testing
import WOPICore
import WOPIHost

/// AddActivities: what a store records and lists.
extension StoreConformance {
    private static func comment(_ id: String, text: String, people: [WOPIActivity.Person] = []) -> WOPIActivity {
        WOPIActivity(id: id, kind: .comment, timestamp: "2017-03-15T13:47:13000000Z", contentID: "cid", contentAction: .created,
                     navigationID: "nav", commentText: text, isReply: false, people: people)
    }

    func activitiesAreRecordedOnce(_ store: any WOPIStore & AuthorizationStore) async throws {
        let now = Self.now
        let alice = try await store.createUser(name: "alice", displayName: "Alice", passwordHash: .unusable)
        let bob = try await store.createUser(name: "bob", displayName: "Bob", passwordHash: .unusable)
        let carol = try await store.createUser(name: "carol", displayName: "Carol", passwordHash: .unusable)
        let file = try await store.createFile(named: "a.docx", in: alice.rootContainerID, blob: .fake(), replacing: false, now: now).file

        let first = ActivityRecord(fileID: file.id, activity: Self.comment("0000000A-0000-0000-0000-000000000000", text: "@Bob look",
                                                                          people: [.init(name: "Bob", id: bob.id.rawValue, mentioned: true)]),
                                   actorID: alice.id, receivedAt: now, mentionedUserIDs: [bob.id, carol.id, bob.id])
        #expect(first.activity.id == "0000000a-0000-0000-0000-000000000000", "ids are stored lower case")
        #expect(first.mentionedUserIDs.count == 2)
        #expect(try await store.recordActivity(first))
        // The same key again (any case) is a retry: nothing changes.
        var retry = first
        retry.activity.commentText = "changed"
        retry.activity.id = retry.activity.id.uppercased()
        #expect(try await store.recordActivity(ActivityRecord(fileID: file.id, activity: retry.activity, actorID: alice.id,
                                                              receivedAt: now.addingTimeInterval(5), mentionedUserIDs: [])) == false)

        let second = ActivityRecord(fileID: file.id, activity: WOPIActivity(id: "00000002-0000-0000-0000-000000000000", kind: .mention,
                                                                            contentID: "c2", contentAction: .deleted),
                                    actorID: carol.id, receivedAt: now.addingTimeInterval(1), mentionedUserIDs: [bob.id])
        #expect(try await store.recordActivity(second))
        let unmentioning = ActivityRecord(fileID: file.id, activity: Self.comment("00000003-0000-0000-0000-000000000000", text: "plain"),
                                          actorID: bob.id, receivedAt: now, mentionedUserIDs: [])
        #expect(try await store.recordActivity(unmentioning))

        let forBob = try await store.activities(mentioning: bob.id)
        #expect(forBob == [first, second], "oldest first, round-tripping every field")
        #expect(forBob.first?.activity.commentText == "@Bob look")
        #expect(try await store.activities(mentioning: carol.id) == [first])
        #expect(try await store.activities(mentioning: alice.id).isEmpty)
        #expect(try await store.activities(mentioning: .random()).isEmpty)

        // Unknown file, author or mentioned user: refused, nothing stored.
        let stray = Self.comment("00000004-0000-0000-0000-000000000000", text: "x")
        await #expect(throws: WOPIStoreError.notFound) {
            try await store.recordActivity(ActivityRecord(fileID: .random(), activity: stray, actorID: alice.id, receivedAt: now, mentionedUserIDs: [bob.id]))
        }
        await #expect(throws: WOPIStoreError.notFound) {
            try await store.recordActivity(ActivityRecord(fileID: file.id, activity: stray, actorID: .random(), receivedAt: now, mentionedUserIDs: [bob.id]))
        }
        await #expect(throws: WOPIStoreError.notFound) {
            try await store.recordActivity(ActivityRecord(fileID: file.id, activity: stray, actorID: alice.id, receivedAt: now, mentionedUserIDs: [.random()]))
        }
        #expect(try await store.activities(mentioning: bob.id).count == 2)

        // Activities go with a removed author, and with their file.
        _ = try await store.removeUser(id: carol.id)
        #expect(try await store.activities(mentioning: bob.id) == [first].map { record in
            var record = record
            record.mentionedUserIDs = [bob.id]
            return record
        })
        _ = try await store.deleteFile(file.id, lock: nil, now: now)
        #expect(try await store.activities(mentioning: bob.id).isEmpty)
    }
}
